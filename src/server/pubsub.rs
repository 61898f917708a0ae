//! Publish, lookup and unpublish: relayed to the host, with the caller's
//! identity as the kernel gave it (never what the caller claims).

use crate::status::Res;
use crate::data::pack::Encoder;
use crate::owned::{encode_infos, Info, Proc};
use crate::runtime::{ConnId, Net};

use super::host::Upcall;
use super::{reply, settled, ServerRole};

impl ServerRole {
    pub(super) fn on_publish(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, mut info: Vec<Info>) -> Res {
        self.add_uid(conn, &mut info);
        let done = self.done_reply(conn, req);
        let u = self.host.publish(who, &info, done);
        self.upcall_reply(net, conn, req, u);
        Ok(())
    }

    pub(super) fn on_lookup(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, keys: Vec<String>, mut info: Vec<Info>) {
        self.add_uid(conn, &mut info);
        let h = self.handle();
        let u = self.host.lookup(who, &keys, &info, Box::new(move |st, pdata| {
            h.run(move |_, net| {
                let mut e = Encoder::default();
                e.u32(pdata.len() as u32);
                for (p, i) in &pdata {
                    p.encode(&mut e);
                    let _ = encode_infos(&mut e, std::slice::from_ref(i));
                }
                reply(net, conn, req, settled(st), e.bytes());
            });
        }));
        self.answer_empty(net, conn, req, u);
    }

    pub(super) fn on_unpublish(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, keys: Vec<String>, mut info: Vec<Info>) {
        self.add_uid(conn, &mut info);
        let u = self.host.unpublish(who, &keys, &info, self.done_reply(conn, req));
        self.answer_empty(net, conn, req, u);
    }

    /// The host answered at once: no publications with its status.
    fn answer_empty(&mut self, net: &mut Net, conn: ConnId, req: u32, u: Upcall) {
        if let Upcall::Now(st) = u {
            let mut e = Encoder::default();
            e.u32(0);
            reply(net, conn, req, settled(st), e.bytes());
        }
    }
}

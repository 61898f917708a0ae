//! Publish, lookup and unpublish: relayed to the host, with the caller's
//! identity as the kernel gave it (never what the caller claims).

use crate::status::Res;
use crate::data::pack::{Decoder, Encoder};
use crate::owned::{decode_infos, decode_str, encode_infos, Proc};
use crate::runtime::{ConnId, Net};
use crate::wire;

use super::host::Upcall;
use super::{reply, settled, ServerRole};

impl ServerRole {
    pub(super) fn on_publish(&mut self, net: &mut Net, conn: ConnId, req: u32, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let mut info = decode_infos(d)?;
        self.add_uid(conn, &mut info);
        let done = self.done_reply(conn, req);
        let u = self.host.publish(who, &info, done);
        self.upcall_reply(net, conn, req, u);
        Ok(())
    }

    /// LOOKUP and UNPUBLISH (same request shape: keys, then directives).
    pub(super) fn on_lookup(&mut self, net: &mut Net, conn: ConnId, req: u32, tag: u16, who: &Proc, d: &mut Decoder<'_>) -> Res {
        let n = d.u32()? as usize;
        let keys: Vec<String> = (0..n.min(d.remaining())).map(|_| decode_str(d)).collect::<Res<_>>()?;
        let mut info = decode_infos(d)?;
        self.add_uid(conn, &mut info);
        let h = self.handle();
        let u = if tag == wire::LOOKUP {
            self.host.lookup(who, &keys, &info, Box::new(move |st, pdata| {
                h.run(move |_, net| {
                    let mut e = Encoder::default();
                    e.u32(pdata.len() as u32);
                    for (p, i) in &pdata {
                        p.encode(&mut e);
                        let _ = encode_infos(&mut e, std::slice::from_ref(i));
                    }
                    reply(net, conn, req, settled(st), e.bytes());
                });
            }))
        } else {
            self.host.unpublish(who, &keys, &info, self.done_reply(conn, req))
        };
        if let Upcall::Now(st) = u {
            let mut e = Encoder::default();
            e.u32(0);
            reply(net, conn, req, settled(st), e.bytes());
        }
        Ok(())
    }
}

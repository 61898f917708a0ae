//! Who waits for a server's answer: a continuation that needs the client's
//! state (run on the progress thread), or a plain one.

use crate::abi::*;
use crate::runtime::Net;

use super::ClientRole;

/// An answer's continuation that needs the client's state (progress thread).
pub type Cont = Box<dyn FnOnce(&mut ClientRole, &mut Net, pmix_status_t, &[u8]) + Send>;
/// An answer's status and body.
pub type ReplyDone = Box<dyn FnOnce(pmix_status_t, &[u8]) + Send>;

/// Who is waiting for an answer.
pub enum Waiter {
    Role(Cont),
    Plain(ReplyDone),
}

impl Waiter {
    pub fn answer(self, c: &mut ClientRole, net: &mut Net, st: pmix_status_t, body: &[u8]) {
        match self {
            Waiter::Role(f) => f(c, net, st, body),
            Waiter::Plain(f) => f(st, body),
        }
    }
}

//! Who waits for a server's answer: a continuation that needs the client's
//! state (run on the progress thread), or a plain one. Either gets the
//! answer typed (`msg::Reply`), whichever codec it came in; a request that
//! could not be sent or was never answered gets its status alone.

use crate::msg::Reply;
use crate::runtime::Net;

use super::ClientRole;

/// An answer's continuation that needs the client's state (progress thread).
pub type Cont = Box<dyn FnOnce(&mut ClientRole, &mut Net, Reply) + Send>;
/// An answer's continuation.
pub type ReplyDone = Box<dyn FnOnce(Reply) + Send>;

/// Who is waiting for an answer.
pub enum Waiter {
    Role(Cont),
    Plain(ReplyDone),
}

impl Waiter {
    pub fn answer(self, c: &mut ClientRole, net: &mut Net, reply: Reply) {
        match self {
            Waiter::Role(f) => f(c, net, reply),
            Waiter::Plain(f) => f(reply),
        }
    }
}

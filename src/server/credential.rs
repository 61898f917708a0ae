//! Per-rank connection credentials: what stops a process from claiming a
//! registered rank that has not connected yet (and a stale or mixed-up
//! environment from connecting as the wrong rank).
//!
//! At server init a 128-bit key is drawn from the kernel. `setup_fork` gives
//! each rank `PMIX_RPMIX_CRED`, a keyed hash (SipHash-2-4, twice, with
//! different keys) of its namespace and rank: computed in the fork child
//! from the snapshot `setup` keeps, so the parent need not be told. An rpmix
//! client sends it in its hello; the server checks it:
//! - a credential that does not match is refused, always;
//! - none at all is refused for a namespace registered with
//!   `rpmix.cred.reqd` (pmixrun's jobs), and accepted otherwise, for clients
//!   of hosts that never call `setup_fork` (a documented downgrade).
//!
//! Threat model: any process of the same user can read another's
//! `/proc/<pid>/environ` or ptrace it. This stops mix-ups and stale claims,
//! not a determined attacker of the same user.

use crate::owned::Proc;

/// The environment variable `setup_fork` sets and a client sends back.
pub const ENV: &str = crate::wire::CRED_ENV;
/// Namespace attribute (register_nspace): every rank must present its credential.
pub const REQUIRED: &str = "rpmix.cred.reqd";

/// The server's secret: four 64-bit SipHash keys (two hashes of 64 bits).
#[derive(Clone, Copy)]
pub struct Key([u64; 4]);

impl Key {
    /// A fresh key from the kernel's random source (None if it fails).
    pub fn new() -> Option<Key> {
        let mut b = [0u8; 32];
        // SAFETY: getrandom writes at most b.len() bytes into b.
        let n = unsafe { libc::getrandom(b.as_mut_ptr() as *mut libc::c_void, b.len(), 0) };
        if n != b.len() as isize {
            return None;
        }
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        Some(Key([w(0), w(1), w(2), w(3)]))
    }

    /// The credential of `proc`: 32 hex digits.
    pub fn token(&self, proc: &Proc) -> String {
        let msg = format!("{}\0{}", proc.nspace, proc.rank);
        let h = |k0: u64, k1: u64| {
            #[allow(deprecated)] // std's SipHasher is SipHash-2-4, keyed: what a MAC needs here
            let mut s = std::hash::SipHasher::new_with_keys(k0, k1);
            std::hash::Hasher::write(&mut s, msg.as_bytes());
            std::hash::Hasher::finish(&s)
        };
        format!("{:016x}{:016x}", h(self.0[0], self.0[1]), h(self.0[2], self.0[3]))
    }

    /// Whether `given` is `proc`'s credential (compared in constant time).
    pub fn verify(&self, proc: &Proc, given: &str) -> bool {
        let want = self.token(proc);
        want.len() == given.len() && want.bytes().zip(given.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_the_rank_s_and_the_key_s() {
        let k = Key::new().unwrap();
        let p = Proc::new("ns.1", 3);
        let t = k.token(&p);
        assert_eq!(t.len(), 32);
        assert!(k.verify(&p, &t));
        assert!(!k.verify(&Proc::new("ns.1", 4), &t));
        assert!(!k.verify(&Proc::new("ns.13", 3), &t));
        assert!(!k.verify(&p, ""));
        assert!(!Key::new().unwrap().verify(&p, &t));
    }
}

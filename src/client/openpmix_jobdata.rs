//! The job data an OpenPMIx 4.2 server sends a client at connect, in reply
//! to its first request, when the client announced the "hash" store
//! (docs/openpmix-ptl-protocol.md, 3.3 and 4.1): the namespace, then one
//! key/value pack call after another to the end of the reply, in OpenPMIx's
//! data format (`data::v41`). Job-level keys apply to every rank; each
//! `pmix.pblob` holds one rank's keys; the session, node and app arrays
//! (`pmix.ssn.arr`, `pmix.node.arr`, `pmix.app.arr`) stay job-level
//! values, as sent.
//! Both buffer forms are read (`described`: the fully described one).

use crate::abi::*;
use crate::owned::Info;
use crate::ptl::Reader;
use crate::status::Res;

/// What the server sent, by rank.
pub struct JobData {
    pub nspace: String,
    /// Keys of the job (rank WILDCARD), the session, node and app arrays among them.
    pub job: Vec<Info>,
    /// Each rank's own keys, in the order sent.
    pub ranks: Vec<(pmix_rank_t, Vec<Info>)>,
}

/// Read the reply; any malformed part fails the whole (nothing half-read).
pub fn parse(reply: &[u8], described: bool) -> Res<JobData> {
    let mut r = Reader::new(reply, described);
    let nspace = r.string()?.ok_or(PMIX_ERR_UNPACK_FAILURE)?;
    let mut job = Vec::new();
    let mut ranks = Vec::new();
    while !r.at_end() {
        let i = r.kval()?;
        if i.key() == "pmix.pblob" {
            ranks.push(rank_blob(i.value_ref(), described)?);
        } else {
            job.push(i);
        }
    }
    Ok(JobData { nspace, job, ranks })
}

/// A `pmix.pblob`: the rank, then its key/value pack calls (in the same
/// buffer form as the reply).
fn rank_blob(v: &pmix_value_t, described: bool) -> Res<(pmix_rank_t, Vec<Info>)> {
    if v.r#type != PMIX_BYTE_OBJECT {
        return Err(PMIX_ERR_UNPACK_FAILURE);
    }
    // SAFETY: a byte object the decoder made (bytes and size agree).
    let bytes = unsafe { crate::data::value::bo_slice(&v.data.bo)? };
    let mut r = Reader::new(bytes, described);
    let rank = r.rank()?;
    Ok((rank, r.kvals_to_end()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reply OpenPMIx 4.2.2's server sent a "hash" client of namespace
    /// testns (2 ranks, one node), captured on the wire.
    const CAPTURED: &str = "020e746573746e7300021c706d69782e6a6f622e73697a65000e02021a706d69782e737061776e6564000e000220637573746f6d2e6a6f626c6576656c00030c68656c6c6f00021e706d69782e6e756d2e6e6f646573000e010216706d69782e6e6c697374000306766d00021c706d69782e6d61782e73697a65000e020220706d69782e6266726f70732e6d6f64000312342e322e3272633200021a706d69782e73736e2e6172720027180220706d69782e73657373696f6e2e696400000effffffff0f1e706d69782e756e69762e73697a6500020e02021c706d69782e6e6f64652e6172720027180416706d69782e686e616d6500000306766d0018706d69782e6c706565727300000308302c310014706d69782e6c6c64720000280020706d69782e6c6f63616c2e73697a6500020e020216706d69782e70626c6f62001b4202000216706d69782e6c72616e6b000d000216706d69782e6e72616e6b000d000218706d69782e6170706e756d000e000216706d69782e686e616d65000306766d000216706d69782e70626c6f62001b4202010216706d69782e6c72616e6b000d010216706d69782e6e72616e6b000d010218706d69782e6170706e756d000e000216706d69782e686e616d65000306766d00";

    fn bytes() -> Vec<u8> {
        (0..CAPTURED.len()).step_by(2).map(|i| u8::from_str_radix(&CAPTURED[i..i + 2], 16).unwrap()).collect()
    }

    fn get<'a>(infos: &'a [Info], key: &str) -> Option<&'a Info> {
        infos.iter().find(|i| i.key() == key)
    }

    #[test]
    fn a_captured_reply_reads_as_sent() {
        let jd = parse(&bytes(), false).unwrap();
        assert_eq!(jd.nspace, "testns");
        assert_eq!(get(&jd.job, "pmix.job.size").and_then(|i| i.as_u32()), Some(2));
        assert_eq!(get(&jd.job, "custom.joblevel").and_then(|i| i.as_str()).as_deref(), Some("hello"));
        assert_eq!(get(&jd.job, "pmix.nlist").and_then(|i| i.as_str()).as_deref(), Some("vm"));
        assert_eq!(get(&jd.job, "pmix.node.arr").map(|i| i.value().type_()), Some(PMIX_DATA_ARRAY));
        assert_eq!(jd.ranks.iter().map(|(r, _)| *r).collect::<Vec<_>>(), [0, 1]);
        for (rank, infos) in &jd.ranks {
            assert_eq!(get(infos, "pmix.hname").and_then(|i| i.as_str()).as_deref(), Some("vm"), "rank {rank}");
            assert_eq!(get(infos, "pmix.lrank").map(|i| i.value().type_()), Some(PMIX_UINT16), "rank {rank}");
        }
    }

    #[test]
    fn every_truncation_fails_or_reads_less() {
        let b = bytes();
        let full = parse(&b, false).map(|jd| jd.job.len() + jd.ranks.len()).unwrap();
        for n in 0..b.len() {
            // (a cut between two pack calls is a shorter, valid reply;
            // anywhere else it is an error, never a panic)
            if let Ok(jd) = parse(&b[..n], false) {
                assert!(jd.job.len() + jd.ranks.len() < full, "cut at {n} read everything");
            }
        }
    }
}

//! Process groups: construct, invite, join, leave, destruct (`pmix.h`).
#![allow(non_snake_case, unused_variables)]

use core::ffi::{c_char, c_void};

use crate::abi::*;
use crate::msg::GroupOp;
use super::completions::{infos_done, op_done, wait_infos};

/// The group name argument: NUL-terminated, at most PMIX_MAX_NSLEN bytes.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (only the first PMIX_MAX_NSLEN + 1 bytes are read).
unsafe fn group_name(grp: *const c_char) -> Option<String> {
    // SAFETY: the caller upholds the contract above: `grp` is NULL or NUL-terminated (only the first PMIX_MAX_NSLEN + 1 bytes are read).
    unsafe {
        crate::cmem::bounded_cstr(grp, PMIX_MAX_NSLEN + 1).and_then(|b| core::str::from_utf8(b).ok()).filter(|s| !s.is_empty()).map(str::to_string)
    }
}

/// Blocking construct / invite: results handed to the caller.
///
/// # Safety
/// As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos, `results`/`nresults` NULL or writable.
#[allow(clippy::too_many_arguments)]
unsafe fn group_blocking(fname: &str, op: GroupOp, grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos, `results`/`nresults` NULL or writable.
    unsafe {
        let name = group_name(grp);
        if name.is_none() || procs.is_null() || nprocs == 0 {
            crate::pmix_debug!(1, "{fname}: bad parameter: group name or procs");
            return PMIX_ERR_BAD_PARAM;
        }
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let procs = procs!(procs, nprocs);
        wait_infos(results, nresults, |done| crate::client::api::group(op, &name.unwrap(), procs, d, done))
    }
}

/// Non-blocking construct / invite: results to the info callback.
///
/// # Safety
/// As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos; `cbdata` is the caller's, handed back to `cbfunc`.
#[allow(clippy::too_many_arguments)]
unsafe fn group_nb(fname: &str, op: GroupOp, grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: As the group exports: `grp` NULL or NUL-terminated, `procs` NULL or `nprocs` valid procs, `info` NULL or `ninfo` valid infos; `cbdata` is the caller's, handed back to `cbfunc`.
    unsafe {
        let name = group_name(grp);
        if name.is_none() || procs.is_null() || nprocs == 0 {
            crate::pmix_debug!(1, "{fname}: bad parameter: group name or procs");
            return PMIX_ERR_BAD_PARAM;
        }
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        crate::client::api::group(op, &name.unwrap(), procs!(procs, nprocs), d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    }
}

/// Form the process group `grp` from `procs`, and wait until it is formed.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresults` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for an empty or over-long
/// `grp`, a NULL `procs` or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a
/// server; PMIX_ERR_WOULD_BLOCK in a callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `directives` is NULL or points to `ndirs` valid
/// infos; `results` and `nresults` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, directives: *const pmix_info_t, ndirs: usize, results: *mut *mut pmix_info_t, nresults: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Group_construct", { group_blocking("PMIx_Group_construct", GroupOp::Construct, grp, procs, nprocs, directives, ndirs, results, nresults) })
}

/// Start forming the process group `grp` from `procs`; `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`, a NULL `procs`
/// or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (before this returns only if the
/// request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo` valid infos;
/// `cbfunc` may be NULL, else it must call the release function it is given; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_construct_nb(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_construct_nb", { group_nb("PMIx_Group_construct_nb", GroupOp::Construct, grp, procs, nprocs, info, ninfo, cbfunc, cbdata) })
}

/// Invite `procs` to join the group `grp`, led by the caller, and wait for the outcome.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresult` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for an empty or over-long
/// `grp`, a NULL `procs` or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a
/// server; PMIX_ERR_WOULD_BLOCK in a callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo` valid infos;
/// `results` and `nresult` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresult: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Group_invite", { group_blocking("PMIx_Group_invite", GroupOp::Invite, grp, procs, nprocs, info, ninfo, results, nresult) })
}

/// Invite `procs` to join the group `grp`, led by the caller; `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`, a NULL `procs`
/// or `nprocs` 0; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (before this returns only if the
/// request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `procs` is
/// NULL or points to `nprocs` valid procs; `info` is NULL or points to `ninfo` valid infos;
/// `cbfunc` may be NULL, else it must call the release function it is given; `cbdata` is
/// passed back untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_invite_nb(grp: *const c_char, procs: *const pmix_proc_t, nprocs: usize, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_invite_nb", { group_nb("PMIx_Group_invite_nb", GroupOp::Invite, grp, procs, nprocs, info, ninfo, cbfunc, cbdata) })
}

/// The accept / decline argument of PMIx_Group_join.
fn join_opt(opt: pmix_group_opt_t) -> Option<bool> {
    match opt {
        PMIX_GROUP_ACCEPT => Some(true),
        PMIX_GROUP_DECLINE => Some(false),
        _ => None,
    }
}

/// Accept or decline (`opt`) an invitation from `leader` to join the group `grp`, and wait
/// for the outcome.
///
/// Returns the server's status, with `*results` a malloc'd array of `*nresult` infos
/// (PMIX_INFO_FREE) when both are non-NULL; PMIX_ERR_BAD_PARAM for an empty or over-long
/// `grp` or an `opt` other than accept/decline; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH
/// without a server; PMIX_ERR_WOULD_BLOCK in a callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `leader` is
/// NULL or a valid proc; `info` is NULL or points to `ninfo` valid infos; `results` and
/// `nresult` are each NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join(grp: *const c_char, leader: *const pmix_proc_t, opt: pmix_group_opt_t, info: *const pmix_info_t, ninfo: usize, results: *mut *mut pmix_info_t, nresult: *mut usize) -> pmix_status_t {
    status_entry!("PMIx_Group_join", {
        let (name, accept) = (group_name(grp), join_opt(opt));
        require!("PMIx_Group_join", name.is_some() && accept.is_some());
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        let l = leader.as_ref().map(crate::owned::Proc::from_c);
        wait_infos(results, nresult, |done| crate::client::api::group_join(&name.unwrap(), l, accept.unwrap(), d, done))
    })
}

/// Accept or decline (`opt`) an invitation from `leader` to join the group `grp`; `cbfunc`
/// gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp` or an `opt`
/// other than accept/decline; PMIX_ERR_NOMEM; PMIX_ERR_INIT/UNREACH without a server. On
/// PMIX_SUCCESS `cbfunc` fires exactly once, from the progress thread (just after this
/// returns (off the caller's stack) only if the request cannot be encoded); on an error
/// return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `leader` is
/// NULL or a valid proc; `info` is NULL or points to `ninfo` valid infos; `cbfunc` may be
/// NULL, else it must call the release function it is given; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_join_nb(grp: *const c_char, leader: *const pmix_proc_t, opt: pmix_group_opt_t, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_info_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_join_nb", {
        let (name, accept) = (group_name(grp), join_opt(opt));
        require!("PMIx_Group_join_nb", name.is_some() && accept.is_some());
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        if crate::client::handle().is_none() {
            return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
        }
        let l = leader.as_ref().map(crate::owned::Proc::from_c);
        crate::client::api::group_join(&name.unwrap(), l, accept.unwrap(), d, infos_done(cbfunc, cbdata));
        PMIX_SUCCESS
    })
}

/// PMIx_Group_leave / _destruct with an op callback (None: blocking).
///
/// # Safety
/// `grp` NULL or NUL-terminated, `info` NULL or `ninfo` valid infos; a callback's `cbdata` is the caller's, handed back to it.
unsafe fn group_op(op: GroupOp, fname: &str, grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cb: Option<(pmix_op_cbfunc_t, *mut c_void)>) -> pmix_status_t {
    // SAFETY: the caller upholds the contract above: `grp` NULL or NUL-terminated, `info` NULL or `ninfo` valid infos; a callback's `cbdata` is the caller's, handed back to it.
    unsafe {
        let Some(name) = group_name(grp) else {
            crate::pmix_debug!(1, "{fname}: bad parameter: group name");
            return PMIX_ERR_BAD_PARAM;
        };
        let Ok(d) = crate::owned::Info::copy_array(info, ninfo) else { return PMIX_ERR_NOMEM };
        match cb {
            None => wait_infos(core::ptr::null_mut(), core::ptr::null_mut(), |done| crate::client::api::group(op, &name, Vec::new(), d, done)),
            Some((cbfunc, cbdata)) => {
                if crate::client::handle().is_none() {
                    return if crate::client::me().is_some() { PMIX_ERR_UNREACH } else { PMIX_ERR_INIT };
                }
                let done = op_done(cbfunc, cbdata);
                crate::client::api::group(op, &name, Vec::new(), d, crate::runtime::Completion::new(move |st, _: Vec<crate::owned::Info>| done.status(st)));
                PMIX_SUCCESS
            }
        }
    }
}

/// Leave the group `grp`, waiting for the server to acknowledge it.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_ERR_BAD_PARAM for an empty or
/// over-long `grp`; PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server;
/// PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave(grp: *const c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Group_leave", { group_op(GroupOp::Leave, "PMIx_Group_leave", grp, info, ninfo, None) })
}

/// Leave the group `grp`; `cbfunc` gets the server's acknowledgement.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`;
/// PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (just after this returns (off the
/// caller's stack) only if the request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos; `cbfunc` may be NULL; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_leave_nb(grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_leave_nb", { group_op(GroupOp::Leave, "PMIx_Group_leave_nb", grp, info, ninfo, Some((cbfunc, cbdata))) })
}

/// Dissolve the group `grp`, and wait for the outcome.
///
/// Returns PMIX_SUCCESS or the server's status; PMIX_ERR_BAD_PARAM for an empty or
/// over-long `grp`; PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server;
/// PMIX_ERR_WOULD_BLOCK inside a PMIx callback.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct(grp: *const c_char, info: *const pmix_info_t, ninfo: usize) -> pmix_status_t {
    status_entry!("PMIx_Group_destruct", { group_op(GroupOp::Destruct, "PMIx_Group_destruct", grp, info, ninfo, None) })
}

/// Start dissolving the group `grp`; `cbfunc` gets the outcome.
///
/// Returns PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for an empty or over-long `grp`;
/// PMIX_ERR_NOMEM; PMIX_ERR_INIT/PMIX_ERR_UNREACH without a server. On PMIX_SUCCESS
/// `cbfunc` fires exactly once, from the progress thread (just after this returns (off the
/// caller's stack) only if the request cannot be encoded); on an error return never.
///
/// # Safety
/// `grp` is NULL or NUL-terminated (at most PMIX_MAX_NSLEN + 1 bytes are read); `info` is
/// NULL or points to `ninfo` valid infos; `cbfunc` may be NULL; `cbdata` is passed back
/// untouched.
#[no_mangle]
pub unsafe extern "C" fn PMIx_Group_destruct_nb(grp: *const c_char, info: *const pmix_info_t, ninfo: usize, cbfunc: pmix_op_cbfunc_t, cbdata: *mut c_void) -> pmix_status_t {
    status_entry!("PMIx_Group_destruct_nb", { group_op(GroupOp::Destruct, "PMIx_Group_destruct_nb", grp, info, ninfo, Some((cbfunc, cbdata))) })
}

//! Unit tests of the exports newer than 4.2.2 (keys, argv, environments,
//! error codes, strings, info lists, tools), called directly.

use core::ffi::{c_char, c_int, c_void, CStr};
use core::ptr;

use crate::abi::*;
use crate::cmem;
use crate::data::infolist;
use super::argv_env::*;
use super::data_info::*;
use super::data_names::*;
use super::data_strings::*;
use super::job_control::PMIx_Session_control;
use super::tool::*;

/// A NULL-terminated argv as Rust strings (lossy), without freeing it.
///
/// # Safety
/// `a` is NULL or a NULL-terminated array of strings.
unsafe fn strings(a: *mut *mut c_char) -> Vec<String> {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        (0..cmem::argv_len(a)).map(|i| CStr::from_ptr(*a.add(i)).to_string_lossy().into_owned()).collect()
    }
}

/// A malloc'd C string taken back as a Rust one (freed).
///
/// # Safety
/// `s` is a malloc'd NUL-terminated string, not used after.
unsafe fn take(s: *mut c_char) -> String {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        assert!(!s.is_null());
        let out = CStr::from_ptr(s).to_string_lossy().into_owned();
        cmem::free(s);
        out
    }
}

#[test]
fn argv_edits_and_copies() {
    // SAFETY: every array here is built by these functions; strings are literals.
    unsafe {
        let mut a: *mut *mut c_char = ptr::null_mut();
        assert_eq!(PMIx_Argv_count(a), 0);
        assert_eq!(PMIx_Argv_append_nosize(&mut a, c"b".as_ptr()), PMIX_SUCCESS);
        assert_eq!(PMIx_Argv_append_nosize(&mut a, c"c".as_ptr()), PMIX_SUCCESS);
        assert_eq!(PMIx_Argv_prepend_nosize(&mut a, c"a".as_ptr()), PMIX_SUCCESS);
        assert_eq!(PMIx_Argv_append_unique_nosize(&mut a, c"b".as_ptr()), PMIX_SUCCESS);
        assert_eq!(PMIx_Argv_append_unique_nosize(&mut a, c"d".as_ptr()), PMIX_SUCCESS);
        assert_eq!(strings(a), ["a", "b", "c", "d"]);
        assert_eq!(PMIx_Argv_count(a), 4);
        assert_eq!(take(PMIx_Argv_join(a, b',' as c_int)), "a,b,c,d");
        let c = PMIx_Argv_copy(a);
        assert_eq!(strings(c), ["a", "b", "c", "d"]);
        PMIx_Argv_free(c);
        PMIx_Argv_free(a);

        let mut p: *mut *mut c_char = ptr::null_mut();
        assert_eq!(PMIx_Argv_prepend_nosize(&mut p, c"x".as_ptr()), PMIX_SUCCESS);
        assert_eq!(strings(p), ["x"]);
        PMIx_Argv_free(p);

        assert_eq!(PMIx_Argv_append_nosize(ptr::null_mut(), c"x".as_ptr()), PMIX_ERR_BAD_PARAM);
        let mut n: *mut *mut c_char = ptr::null_mut();
        assert_eq!(PMIx_Argv_append_nosize(&mut n, ptr::null()), PMIX_ERR_BAD_PARAM);
        assert!(n.is_null());
        assert_eq!(take(PMIx_Argv_join(ptr::null_mut(), b',' as c_int)), "");
        assert!(PMIx_Argv_copy(ptr::null_mut()).is_null());
        let mut empty: [*mut c_char; 1] = [ptr::null_mut()];
        let e = PMIx_Argv_copy(empty.as_mut_ptr());
        assert!(!e.is_null() && (*e).is_null());
        PMIx_Argv_free(e);
        PMIx_Argv_free(ptr::null_mut());
    }
}

#[test]
fn argv_split_as_openpmix() {
    // SAFETY: literals in, arrays of ours out.
    unsafe {
        let s = PMIx_Argv_split(c"a::b:".as_ptr(), b':' as c_int);
        assert_eq!(strings(s), ["a", "b"]);
        PMIx_Argv_free(s);
        let s = PMIx_Argv_split_with_empty(c":a::b:".as_ptr(), b':' as c_int);
        assert_eq!(strings(s), ["", "a", "", "b"]);
        PMIx_Argv_free(s);
        assert!(PMIx_Argv_split(c":::".as_ptr(), b':' as c_int).is_null());
        assert!(PMIx_Argv_split(c"".as_ptr(), b':' as c_int).is_null());
        assert!(PMIx_Argv_split(ptr::null(), b':' as c_int).is_null());
    }
}

#[test]
fn setenv_on_an_array_and_on_environ() {
    // SAFETY: the array is built by these functions; strings are literals.
    unsafe {
        let mut env: *mut *mut c_char = ptr::null_mut();
        assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"1".as_ptr(), false, &mut env), PMIX_SUCCESS);
        assert_eq!(PMIx_Setenv(c"AB".as_ptr(), ptr::null(), false, &mut env), PMIX_SUCCESS);
        assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"2".as_ptr(), false, &mut env), PMIX_ERR_EXISTS);
        assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"3".as_ptr(), true, &mut env), PMIX_SUCCESS);
        assert_eq!(strings(env), ["A=3", "AB="]);
        PMIx_Argv_free(env);
        assert_eq!(PMIx_Setenv(ptr::null(), c"1".as_ptr(), true, &mut env), PMIX_ERR_BAD_PARAM);
        assert_eq!(PMIx_Setenv(c"A".as_ptr(), c"1".as_ptr(), true, ptr::null_mut()), PMIX_ERR_BAD_PARAM);

        let live = ptr::addr_of_mut!(libc::environ);
        let name = c"RPMIX_V5MISC_SETENV_TEST";
        assert_eq!(PMIx_Setenv(name.as_ptr(), c"x".as_ptr(), true, live), PMIX_SUCCESS);
        assert_eq!(std::env::var("RPMIX_V5MISC_SETENV_TEST").as_deref(), Ok("x"));
        assert_eq!(PMIx_Setenv(name.as_ptr(), c"y".as_ptr(), false, live), PMIX_SUCCESS);
        assert_eq!(std::env::var("RPMIX_V5MISC_SETENV_TEST").as_deref(), Ok("x"));
        assert_eq!(PMIx_Setenv(name.as_ptr(), ptr::null(), true, live), PMIX_SUCCESS);
        assert!(std::env::var_os("RPMIX_V5MISC_SETENV_TEST").is_none());
    }
}

#[test]
fn keys_and_namespaces_are_bounded() {
    let long = [b'k' as c_char; 600]; // no NUL anywhere
    let mut key = [1 as c_char; PMIX_MAX_KEYLEN + 1];
    let mut ns = [1 as c_char; PMIX_MAX_NSLEN + 1];
    // SAFETY: readable/writable local arrays; every read stops inside them.
    unsafe {
        PMIx_Load_key(key.as_mut_ptr(), long.as_ptr());
        assert_eq!(fixed_bytes(&key, key.len()).len(), PMIX_MAX_KEYLEN);
        assert_eq!(key[PMIX_MAX_KEYLEN], 0);
        assert!(PMIx_Check_key(key.as_ptr(), long.as_ptr()));
        let kp = key.as_mut_ptr();
        PMIx_Load_key(kp, kp.add(PMIX_MAX_KEYLEN - 3));
        assert_eq!(fixed_bytes(&key, key.len()), b"kkk");
        PMIx_Load_key(key.as_mut_ptr(), ptr::null());
        assert!(key.iter().all(|&c| c == 0));
        PMIx_Load_key(ptr::null_mut(), c"x".as_ptr());
        assert!(!PMIx_Check_key(ptr::null(), c"x".as_ptr()));
        assert!(PMIx_Check_reserved_key(c"pmix.foo".as_ptr()));
        assert!(!PMIx_Check_reserved_key(c"pmi".as_ptr()));
        assert!(!PMIx_Check_reserved_key(ptr::null()));

        PMIx_Load_nspace(ns.as_mut_ptr(), long.as_ptr());
        assert_eq!(fixed_bytes(&ns, ns.len()).len(), PMIX_MAX_NSLEN);
        assert!(PMIx_Check_nspace(ns.as_ptr(), long.as_ptr()));
        assert!(!PMIx_Check_nspace(c"a".as_ptr(), c"b".as_ptr()));
        assert!(PMIx_Check_nspace(c"".as_ptr(), c"b".as_ptr()));
        assert!(PMIx_Check_nspace(ptr::null(), c"b".as_ptr()));
        assert!(PMIx_Nspace_invalid(ptr::null()));
        assert!(PMIx_Nspace_invalid(c"".as_ptr()));
        assert!(!PMIx_Nspace_invalid(c"a".as_ptr()));
    }
}

#[test]
fn process_identifiers() {
    // SAFETY: local procs and literals.
    unsafe {
        let mut a: pmix_proc_t = core::mem::zeroed();
        let mut b: pmix_proc_t = core::mem::zeroed();
        assert!(PMIx_Procid_invalid(&a));
        PMIx_Load_procid(&mut a, c"job".as_ptr(), 3);
        assert!(!PMIx_Procid_invalid(&a));
        PMIx_Xfer_procid(&mut b, &a);
        assert!(PMIx_Check_procid(&a, &b));
        PMIx_Proc_load(&mut b, c"job".as_ptr() as *mut c_char, PMIX_RANK_WILDCARD);
        assert!(PMIx_Check_procid(&a, &b));
        PMIx_Proc_load(&mut b, c"other".as_ptr() as *mut c_char, 3);
        assert!(!PMIx_Check_procid(&a, &b));
        assert!(!PMIx_Check_procid(&a, ptr::null()));
        assert!(PMIx_Procid_invalid(ptr::null()));
        assert!(PMIx_Check_rank(1, PMIX_RANK_WILDCARD));
        assert!(!PMIx_Check_rank(1, 2));
        a.rank = PMIX_RANK_INVALID;
        assert!(PMIx_Procid_invalid(&a));
        // Loading a proc's namespace from itself keeps it.
        let bp: *mut pmix_proc_t = &mut b;
        PMIx_Load_procid(bp, (*bp).nspace.as_ptr(), 4);
        assert_eq!(fixed_bytes(&b.nspace, PMIX_MAX_NSLEN), b"other");

        b.rank = PMIX_RANK_WILDCARD;
        assert_eq!(take(PMIx_Proc_string(&b)), "[other,WILDCARD]");
        b.rank = 7;
        assert_eq!(take(PMIx_Proc_string(&b)), "[other,7]");
        assert_eq!(take(PMIx_Proc_string(ptr::null())), "[NO-NAME]");
    }
}

#[test]
fn multicluster_namespaces() {
    let mut t = [0 as c_char; PMIX_MAX_NSLEN + 1];
    let mut c = [1 as c_char; PMIX_MAX_NSLEN + 1];
    let mut n = [1 as c_char; PMIX_MAX_NSLEN + 1];
    // SAFETY: local namespace buffers and literals.
    unsafe {
        PMIx_Multicluster_nspace_construct(t.as_mut_ptr(), c"east".as_ptr() as *mut c_char, c"job1".as_ptr() as *mut c_char);
        assert_eq!(fixed_bytes(&t, t.len()), b"east:job1");
        PMIx_Multicluster_nspace_parse(t.as_mut_ptr(), c.as_mut_ptr(), n.as_mut_ptr());
        assert_eq!(fixed_bytes(&c, c.len()), b"east");
        assert_eq!(fixed_bytes(&n, n.len()), b"job1");
        PMIx_Multicluster_nspace_parse(c"plain".as_ptr() as *mut c_char, c.as_mut_ptr(), n.as_mut_ptr());
        assert_eq!(fixed_bytes(&c, c.len()), b"plain");
        assert_eq!(fixed_bytes(&n, n.len()), b"");
        let long = [b'x' as c_char; PMIX_MAX_NSLEN + 1];
        PMIx_Multicluster_nspace_construct(t.as_mut_ptr(), long.as_ptr() as *mut c_char, c"j".as_ptr() as *mut c_char);
        assert_eq!(fixed_bytes(&t, t.len()), b"");
    }
}

#[test]
fn status_names() {
    // SAFETY: literals.
    unsafe {
        assert_eq!(PMIx_Error_code(c"PMIX_ERR_BAD_PARAM".as_ptr()), PMIX_ERR_BAD_PARAM);
        assert_eq!(PMIx_Error_code(c"pmix_err_not_supported".as_ptr()), PMIX_ERR_NOT_SUPPORTED);
        assert_eq!(PMIx_Error_code(c"PMIX_SUCCESS".as_ptr()), PMIX_SUCCESS);
        assert_eq!(PMIx_Error_code(c"BAD-PARAM".as_ptr()), PMIX_ERR_BAD_PARAM);
        assert_eq!(PMIx_Error_code(c"no such name".as_ptr()), i32::MIN);
        assert_eq!(PMIx_Error_code(c"ERROR STRING NOT FOUND".as_ptr()), i32::MIN);
        assert_eq!(PMIx_Error_code(ptr::null()), i32::MIN);
    }
    // Every name our PMIx_Error_string gives comes back to its code.
    for code in LOWEST_NAMED_STATUS..=0 {
        let text = crate::strings::error_string(code);
        if text != crate::strings::UNKNOWN_ERROR {
            assert_eq!(status_code(text.to_bytes()), code, "{text:?}");
        }
    }
}

#[test]
fn app_string_lists_every_field() {
    let mut argv = [c"-n".as_ptr() as *mut c_char, c"4".as_ptr() as *mut c_char, ptr::null_mut()];
    let app = pmix_app_t {
        cmd: c"hostname".as_ptr() as *mut c_char,
        argv: argv.as_mut_ptr(),
        env: ptr::null_mut(),
        cwd: ptr::null_mut(),
        maxprocs: 2,
        info: ptr::null_mut(),
        ninfo: 0,
    };
    // SAFETY: a valid app of literals.
    let s = unsafe { take(PMIx_App_string(&app)) };
    let want = "CMD: hostname\n    ARGV:\n        ARGV[0]: -n\n        ARGV[1]: 4\n    ENV:\n        NONE\n    CWD: NULL\n    MAXPROCS: 2\n    INFO: NONE";
    assert_eq!(s, want);
    // SAFETY: NULL is allowed.
    assert!(unsafe { PMIx_App_string(ptr::null()) }.is_null());
}

#[test]
fn framework_names_are_null_terminated() {
    let names = &pmix_framework_names.0;
    assert!(names.last().unwrap().is_null());
    assert!(names[..names.len() - 1].iter().all(|p| !p.is_null()));
    // SAFETY: non-NULL entries are static C strings.
    let first = unsafe { CStr::from_ptr(names[0]) };
    assert_eq!(first, c"bfrops");
    // SAFETY: as above.
    assert_eq!(unsafe { CStr::from_ptr(names[names.len() - 2]) }, c"mca");
}

/// One expected list entry.
fn e(k: &str, v: &str, flags: u32) -> (String, String, u32) {
    (k.to_string(), v.to_string(), flags)
}

/// The (key, string value, flags) of each info on a list, via convert.
///
/// # Safety
/// `l` is a live list handle whose values are strings.
unsafe fn contents(l: *mut c_void) -> Vec<(String, String, u32)> {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        let snap = infolist::Snapshot::of(infolist::get(l).unwrap()).unwrap();
        snap.infos()
            .iter()
            .map(|i| {
                let k = String::from_utf8_lossy(fixed_bytes(&i.key, PMIX_MAX_KEYLEN)).into_owned();
                assert_eq!(i.value.r#type, PMIX_STRING);
                let v = CStr::from_ptr(i.value.data.string).to_string_lossy().into_owned();
                (k, v, i.flags)
            })
            .collect()
    }
}

#[test]
fn info_lists_keep_keys_unique() {
    // SAFETY: a list of ours; values are string literals loaded as PMIx_Value_load takes
    // them; the inserted info outlives the list.
    unsafe {
        let l = crate::ffi::deprecated::PMIx_Info_list_start();
        let one = c"1".as_ptr() as *const c_void;
        let two = c"2".as_ptr() as *const c_void;
        assert_eq!(PMIx_Info_list_add_unique(l, c"a".as_ptr(), one, PMIX_STRING, false), PMIX_SUCCESS);
        assert_eq!(PMIx_Info_list_add_unique(l, c"a".as_ptr(), two, PMIX_STRING, false), PMIX_SUCCESS);
        assert_eq!(contents(l), [e("a", "1", 0)]);

        let mut ins: pmix_info_t = core::mem::zeroed();
        assert_eq!(crate::data::info_load(&mut ins, c"b".as_ptr(), one, PMIX_STRING), Ok(()));
        ins.flags = PMIX_INFO_REQD;
        assert_eq!(crate::ffi::deprecated::PMIx_Info_list_insert(l, &mut ins), PMIX_SUCCESS);
        assert_eq!(PMIx_Info_list_add_unique(l, c"b".as_ptr(), two, PMIX_STRING, true), PMIX_SUCCESS);
        assert_eq!(contents(l), [e("a", "1", 0), e("b", "2", PMIX_INFO_REQD)]);
        // The caller's inserted info is untouched.
        assert_eq!(CStr::from_ptr(ins.value.data.string), c"1");

        let mut v: pmix_value_t = core::mem::zeroed();
        assert_eq!(crate::data::value::load(&mut v, two, PMIX_STRING), Ok(()));
        assert_eq!(PMIx_Info_list_add_value(l, c"c".as_ptr(), &v), PMIX_SUCCESS);
        assert_eq!(PMIx_Info_list_add_value_unique(l, c"a".as_ptr(), &v, true), PMIX_SUCCESS);
        assert_eq!(PMIx_Info_list_add_value_unique(l, c"c".as_ptr(), &v, false), PMIX_SUCCESS);
        let mut x: pmix_info_t = core::mem::zeroed();
        assert_eq!(crate::data::info_load(&mut x, c"c".as_ptr(), one, PMIX_STRING), Ok(()));
        assert_eq!(PMIx_Info_list_xfer_unique(l, &x, true), PMIX_SUCCESS);
        x.key[0] = b'd' as c_char;
        assert_eq!(PMIx_Info_list_xfer_unique(l, &x, false), PMIX_SUCCESS);
        let want = [e("a", "2", 0), e("b", "2", PMIX_INFO_REQD), e("c", "1", 0), e("d", "1", 0)];
        assert_eq!(contents(l), want);

        assert_eq!(PMIx_Info_list_add_value(l, ptr::null(), &v), PMIX_ERR_BAD_PARAM);
        assert_eq!(PMIx_Info_list_add_value(l, c"e".as_ptr(), ptr::null()), PMIX_ERR_BAD_PARAM);
        assert_eq!(PMIx_Info_list_xfer_unique(l, ptr::null(), true), PMIX_ERR_BAD_PARAM);
        assert_eq!(PMIx_Info_list_add_unique(ptr::null_mut(), c"a".as_ptr(), one, PMIX_STRING, true), PMIX_ERR_BAD_PARAM);

        crate::ffi::deprecated::PMIx_Info_list_release(l);
        crate::data::value::destruct(&mut v);
        crate::data::value::destruct(&mut x.value);
        crate::data::value::destruct(&mut ins.value);
    }
}

#[test]
fn session_control_and_server_module_are_refused() {
    // SAFETY: NULL and unused arguments only.
    unsafe {
        let st = PMIx_Session_control(0, ptr::null(), 0, None, ptr::null_mut());
        assert_eq!(st, PMIX_ERR_INIT); // (no role initialised in unit tests)
        assert_eq!(PMIx_tool_set_server_module(ptr::null_mut()), PMIX_ERR_BAD_PARAM);
    }
}
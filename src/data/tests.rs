//! Unit tests of the data layer, through the same functions the C entries call.

use core::ffi::{c_char, c_void};

use super::kind::Kind;
use super::*;

fn cstr(s: &str) -> std::ffi::CString {
    std::ffi::CString::new(s).unwrap()
}

/// One info of type `t` whose value is read from `data`.
///
/// # Safety
/// `data` points to a valid value of type `t` (read by PMIx_Value_load).
unsafe fn info(key: &str, data: *const c_void, t: pmix_data_type_t) -> pmix_info_t {
    // SAFETY: the caller upholds the contract above: `data` points to a valid value of type `t` (read by PMIx_Value_load).
    unsafe {
        let mut i: pmix_info_t = core::mem::zeroed();
        let k = cstr(key);
        info_load(&mut i, k.as_ptr(), data, t).unwrap();
        i
    }
}

/// An info of every packable type, with values that exercise each.
///
/// # Safety
/// None beyond the test's own: it builds infos from local values. The caller frees them with `free_infos`.
unsafe fn sample_infos() -> Vec<pmix_info_t> {
    // SAFETY: the caller upholds the contract above: None beyond the test's own: it builds infos from local values. The caller frees them with `free_infos`.
    unsafe {
        let x: i32 = -5;
        let s = cstr("a string");
        let mut p: pmix_proc_t = core::mem::zeroed();
        crate::cmem::load_fixed(&mut p.nspace, b"ns.1");
        p.rank = 3;
        let inner = [info("i1", &x as *const i32 as *const c_void, PMIX_INT32)];
        let arr = pmix_data_array_t { r#type: PMIX_INFO, size: 1, array: inner.as_ptr() as *mut c_void };
        let v = vec![
            info("int", &x as *const i32 as *const c_void, PMIX_INT),
            info("str", s.as_ptr() as *const c_void, PMIX_STRING),
            info("proc", &p as *const pmix_proc_t as *const c_void, PMIX_PROC),
            info("arr", &arr as *const pmix_data_array_t as *const c_void, PMIX_DATA_ARRAY),
            info("flag", core::ptr::null(), PMIX_BOOL),
        ];
        let mut inner = inner;
        value::destruct(&mut inner[0].value);
        v
    }
}

/// Free what `sample_infos` made.
///
/// # Safety
/// `v` holds infos made by `sample_infos`/`info`, not freed before.
unsafe fn free_infos(v: &mut [pmix_info_t]) {
    // SAFETY: the caller upholds the contract above: `v` holds infos made by `sample_infos`/`info`, not freed before.
    unsafe {
        for i in v.iter_mut() {
            value::destruct(&mut i.value);
        }
    }
}

/// `infos` packed into a new buffer.
///
/// # Safety
/// `infos` are valid infos (from `sample_infos`).
unsafe fn packed(infos: &[pmix_info_t]) -> pmix_data_buffer_t {
    // SAFETY: the caller upholds the contract above: `infos` are valid infos (from `sample_infos`).
    unsafe {
        let mut b: pmix_data_buffer_t = core::mem::zeroed();
        pack(&mut b, infos.as_ptr() as *const c_void, infos.len() as i32, PMIX_INFO).unwrap();
        b
    }
}

#[test]
fn info_array_round_trip_through_pack() {
    // SAFETY: sample infos, packed and unpacked through buffers this test owns.
    unsafe {
        let mut src = sample_infos();
        let mut b = packed(&src);
        let mut out: Vec<pmix_info_t> = vec![core::mem::zeroed(); 8];
        let mut n = 8;
        unpack(&mut b, out.as_mut_ptr() as *mut c_void, &mut n, PMIX_INFO).unwrap();
        assert_eq!(n as usize, src.len());
        for i in 0..src.len() {
            assert_eq!(src[i].key, out[i].key);
            assert_eq!(compare::compare(&src[i].value, &out[i].value), PMIX_EQUAL, "info {i}");
        }
        assert_eq!(buffer::unread(&b).unwrap().len(), 0);
        free_infos(&mut out[..n as usize]);
        free_infos(&mut src);
        buffer::release(&mut b);
    }
}

#[test]
fn unpack_is_all_or_nothing() {
    // SAFETY: sample infos and buffers this test owns.
    unsafe {
        let mut src = sample_infos();
        // (the fully described form: only it carries the type to check)
        let mut b: pmix_data_buffer_t = core::mem::zeroed();
        pack_as(&mut b, src.as_ptr() as *const c_void, src.len() as i32, PMIX_INFO, true).unwrap();
        let before = buffer::unread(&b).unwrap().to_vec();
        let mut out: Vec<pmix_info_t> = vec![core::mem::zeroed(); 8];
        // too small a destination
        let mut n = 2;
        assert_eq!(unpack_as(&mut b, out.as_mut_ptr() as *mut c_void, &mut n, PMIX_INFO, true), Err(PMIX_ERR_UNPACK_INADEQUATE_SPACE));
        // wrong type
        let mut n = 8;
        assert_eq!(unpack_as(&mut b, out.as_mut_ptr() as *mut c_void, &mut n, PMIX_VALUE, true), Err(PMIX_ERR_PACK_MISMATCH));
        assert_eq!(buffer::unread(&b).unwrap(), &before[..]);
        // still readable afterwards
        unpack_as(&mut b, out.as_mut_ptr() as *mut c_void, &mut n, PMIX_INFO, true).unwrap();
        free_infos(&mut out[..n as usize]);
        free_infos(&mut src);
        buffer::release(&mut b);
    }
}

#[test]
fn every_truncation_fails_cleanly() {
    // SAFETY: sample infos and truncated copies of a buffer this test owns.
    unsafe {
        let mut src = sample_infos();
        let mut b = packed(&src);
        let full = buffer::unread(&b).unwrap().to_vec();
        for len in 0..full.len() {
            let mut t: pmix_data_buffer_t = core::mem::zeroed();
            buffer::load_bytes(&mut t, &full[..len]).unwrap();
            let mut out: Vec<pmix_info_t> = vec![core::mem::zeroed(); 8];
            let mut n = 8;
            let r = unpack(&mut t, out.as_mut_ptr() as *mut c_void, &mut n, PMIX_INFO);
            assert!(r.is_err(), "truncated at {len} of {}", full.len());
            buffer::release(&mut t);
        }
        free_infos(&mut src);
        buffer::release(&mut b);
    }
}

#[test]
fn random_bytes_never_crash_the_decoder() {
    // xorshift: deterministic, no dependency
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for round in 0..3000 {
        let len = (next() % 96) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // half of the inputs get a valid header, so the element decoders are reached
        let t = (next() % 70) as u16;
        if round % 2 == 0 && bytes.len() >= 6 {
            bytes[..2].copy_from_slice(&t.to_le_bytes());
            bytes[2..6].copy_from_slice(&((next() % 4) as u32).to_le_bytes());
        }
        let Some(kind) = Kind::of(t) else { continue };
        // SAFETY: random bytes are only ever unpacked from a buffer this test owns, into zeroed storage.
        unsafe {
            let mut b: pmix_data_buffer_t = core::mem::zeroed();
            buffer::load_bytes(&mut b, &bytes).unwrap();
            let dst = elem::alloc_array(kind, 8).unwrap();
            let mut n = 8;
            if unpack(&mut b, dst as *mut c_void, &mut n, t).is_ok() {
                elem::free_array(kind, dst, n as usize);
            } else {
                crate::cmem::free(dst);
            }
            buffer::release(&mut b);
        }
    }
}

#[test]
fn nesting_depth_is_bounded() {
    // SAFETY: values this test builds and frees.
    unsafe {
        // a value holding a data array of values holding data arrays ... 40 deep
        let x: i32 = 1;
        let mut v: pmix_value_t = core::mem::zeroed();
        value::load(&mut v, &x as *const i32 as *const c_void, PMIX_INT).unwrap();
        for _ in 0..40 {
            let arr = pmix_data_array_t { r#type: PMIX_VALUE, size: 1, array: &mut v as *mut pmix_value_t as *mut c_void };
            let mut outer: pmix_value_t = core::mem::zeroed();
            let r = value::load(&mut outer, &arr as *const pmix_data_array_t as *const c_void, PMIX_DATA_ARRAY);
            value::destruct(&mut v);
            if r.is_err() {
                assert_eq!(r, Err(PMIX_ERR_BAD_PARAM));
                return;
            }
            v = outer;
        }
        value::destruct(&mut v);
        panic!("40 levels of nesting were accepted");
    }
}

#[test]
fn keys_are_bounded() {
    // SAFETY: an info this test zeroes and loads.
    unsafe {
        let mut i: pmix_info_t = core::mem::zeroed();
        let long = [b'k' as c_char; 512]; // no NUL anywhere
        assert_eq!(info_load(&mut i, long.as_ptr(), core::ptr::null(), PMIX_BOOL), Err(PMIX_ERR_BAD_PARAM));
        let mut ok = [b'k' as c_char; 512];
        ok[511] = 0;
        info_load(&mut i, ok.as_ptr(), core::ptr::null(), PMIX_BOOL).unwrap();
        assert_eq!(crate::cmem::bounded_len(&i.key), 511);
    }
}

#[test]
fn unknown_types_are_refused() {
    // SAFETY: a local value read through its own type.
    unsafe {
        let x = 1i32;
        let mut v: pmix_value_t = core::mem::zeroed();
        for t in [PMIX_BUFFER, PMIX_KVAL, 29, 44, 70, 500, 65535] {
            assert_eq!(value::load(&mut v, &x as *const i32 as *const c_void, t), Err(PMIX_ERR_UNKNOWN_DATA_TYPE));
            let mut b: pmix_data_buffer_t = core::mem::zeroed();
            assert_eq!(pack(&mut b, &x as *const i32 as *const c_void, 1, t), Err(PMIX_ERR_UNKNOWN_DATA_TYPE));
        }
    }
}

#[test]
fn compare_orders_numbers_and_strings() {
    // SAFETY: local values read through their own types.
    unsafe {
        let (a, b) = (1u64, 2u64);
        let (mut va, mut vb): (pmix_value_t, pmix_value_t) = (core::mem::zeroed(), core::mem::zeroed());
        value::load(&mut va, &a as *const u64 as *const c_void, PMIX_UINT64).unwrap();
        value::load(&mut vb, &b as *const u64 as *const c_void, PMIX_UINT64).unwrap();
        assert_eq!(compare::compare(&va, &vb), PMIX_VALUE2_GREATER);
        assert_eq!(compare::compare(&vb, &va), PMIX_VALUE1_GREATER);
        let s = cstr("x");
        value::load(&mut va, s.as_ptr() as *const c_void, PMIX_STRING).unwrap();
        assert_eq!(compare::compare(&va, &vb), PMIX_VALUE_TYPE_DIFFERENT);
        value::destruct(&mut va);
        value::destruct(&mut vb);
    }
}

/// Load, xfer, compare, pack/unpack and copy one element; returns after
/// checking every copy compares equal to the original.
///
/// # Safety
/// `elem_ptr` points to a valid element of type `t`.
unsafe fn round_trip(t: pmix_data_type_t, elem_ptr: *const c_void) {
    // SAFETY: the caller upholds the contract above: `elem_ptr` points to a valid element of type `t`.
    unsafe {
        let mut v: pmix_value_t = core::mem::zeroed();
        value::load(&mut v, elem_ptr, t).unwrap();
        let mut x: pmix_value_t = core::mem::zeroed();
        value::xfer(&mut x, &v, 0).unwrap();
        assert_eq!(compare::compare(&v, &x), PMIX_EQUAL);
        let mut b: pmix_data_buffer_t = core::mem::zeroed();
        pack(&mut b, &v as *const pmix_value_t as *const c_void, 1, PMIX_VALUE).unwrap();
        let mut u: pmix_value_t = core::mem::zeroed();
        let mut n = 1;
        unpack(&mut b, &mut u as *mut pmix_value_t as *mut c_void, &mut n, PMIX_VALUE).unwrap();
        assert_eq!(compare::compare(&v, &u), PMIX_EQUAL);
        let mut c: *mut c_void = core::ptr::null_mut();
        copy(&mut c, elem_ptr, t).unwrap();
        let kind = Kind::of(t).unwrap();
        assert_eq!(compare::compare_elem(kind, c as *const u8, elem_ptr as *const u8), PMIX_EQUAL);
        elem::destruct(kind, c as *mut u8);
        crate::cmem::free(c);
        for w in [&mut v, &mut x, &mut u] {
            value::destruct(w);
        }
        buffer::release(&mut b);
    }
}

#[test]
fn cpusets_and_topologies_round_trip() {
    // SAFETY: cpusets and topologies this test makes and destructs.
    unsafe {
        let mut cs: pmix_cpuset_t = core::mem::zeroed();
        cpuset::parse_cpuset(b"hwloc:0-3,8", &mut cs).unwrap();
        assert_eq!(cpuset::bitmap_text(&cs).unwrap(), b"0-3,8");
        round_trip(PMIX_PROC_CPUSET, &cs as *const pmix_cpuset_t as *const c_void);
        let mut other: pmix_cpuset_t = core::mem::zeroed();
        cpuset::parse_cpuset(b"hwloc:0-2", &mut other).unwrap();
        let (pa, pb) = (&cs as *const _ as *const u8, &other as *const _ as *const u8);
        assert_ne!(compare::compare_elem(Kind::Cpuset, pa, pb), PMIX_EQUAL);
        cpuset::destruct_cpuset(&mut other);
        cpuset::destruct_cpuset(&mut cs);
        for bad in [&b"0-3"[..], b":0-3", b"hwloc:", b"hwloc:0-3;rm -rf"] {
            assert_eq!(cpuset::parse_cpuset(bad, &mut cs), Err(PMIX_ERR_BAD_PARAM));
        }

        // A topology not from hwloc is not packed (as OpenPMIx: NOT_SUPPORTED);
        // hwloc's travels as XML (when libhwloc is installed).
        let mut topo: pmix_topology_t = core::mem::zeroed();
        topo.source = crate::cmem::strdup_bytes(b"rpmix");
        cpuset::load_topology(&mut topo, b"<topology><package/></topology>").unwrap();
        let mut b: pmix_data_buffer_t = core::mem::zeroed();
        assert_eq!(pack(&mut b, &topo as *const pmix_topology_t as *const c_void, 1, PMIX_TOPO), Err(PMIX_ERR_NOT_SUPPORTED));
        cpuset::destruct_topology(&mut topo);
        if let Ok(t) = crate::hwlib::discover() {
            let mut topo: pmix_topology_t = core::mem::zeroed();
            topo.source = crate::cmem::strdup_bytes(b"hwloc");
            topo.topology = crate::hwlib::adopt(t);
            round_trip(PMIX_TOPO, &topo as *const pmix_topology_t as *const c_void);
            cpuset::destruct_topology(&mut topo);
        }

        // a foreign object (an hwloc pointer a host put there) is never copied or freed
        let mut foreign_bits = [0u64; 4];
        let foreign = pmix_cpuset_t { source: core::ptr::null_mut(), bitmap: foreign_bits.as_mut_ptr() as *mut c_void };
        let mut v: pmix_value_t = core::mem::zeroed();
        assert_eq!(value::load(&mut v, &foreign as *const _ as *const c_void, PMIX_PROC_CPUSET), Err(PMIX_ERR_NOT_SUPPORTED));
        let mut f2 = foreign;
        cpuset::destruct_cpuset(&mut f2); // must not free the stack array
    }
}

#[test]
fn stats_and_buffers_round_trip() {
    // SAFETY: stats and buffers this test builds from local strings.
    unsafe {
        let node = cstr("node1");
        let disk = cstr("sda");
        let mut d: pmix_disk_stats_t = core::mem::zeroed();
        d.disk = disk.as_ptr() as *mut c_char;
        d.num_reads_completed = 5;
        let mut ns: pmix_node_stats_t = core::mem::zeroed();
        ns.node = node.as_ptr() as *mut c_char;
        ns.la = 1.5;
        ns.diskstats = &mut d;
        ns.ndiskstats = 1;
        round_trip(PMIX_NODE_STATS, &ns as *const _ as *const c_void);
        let mut b: pmix_data_buffer_t = core::mem::zeroed();
        buffer::append(&mut b, b"payload").unwrap();
        round_trip(PMIX_DATA_BUFFER, &b as *const _ as *const c_void);
        buffer::release(&mut b);
    }
}

/// A data array of a type whose elements own nothing, with a size no memory
/// could hold: destructing it frees the caller's block (found by
/// LeakSanitizer: the block was left alone and leaked), and empties the array.
#[test]
fn darray_destruct_of_impossible_size_frees_a_plain_block() {
    // SAFETY: a calloc'd block handed to the destructor, which frees it.
    unsafe {
        let block = libc::calloc(4, core::mem::size_of::<i32>());
        assert!(!block.is_null());
        let mut d = pmix_data_array_t { r#type: PMIX_INT, size: usize::MAX, array: block };
        elem::destruct_darray(&mut d);
        assert!(d.array.is_null() && d.size == 0, "the block was left in the array");
        // an array whose elements own memory is still left alone (its
        // elements cannot be walked)
        let block = libc::calloc(1, core::mem::size_of::<pmix_info_t>());
        let mut d = pmix_data_array_t { r#type: PMIX_INFO, size: usize::MAX, array: block };
        elem::destruct_darray(&mut d);
        assert_eq!(d.array, block);
        libc::free(block);
    }
}

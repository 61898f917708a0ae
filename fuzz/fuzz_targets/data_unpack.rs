//! The data unpackers: rpmix's own (data::pack, the rpmix wire's values),
//! OpenPMIx's v41 serialisation (data::v41, what PMIx_Data_unpack reads)
//! and PMIx_Data_unpack itself. Byte 0: the data type; byte 1: which
//! decoder (and, for the arrays, how many elements); the rest: the bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use pmix::abi::*;
use pmix::data::kind::Kind;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let t = data[0] as pmix_data_type_t;
    let Some(kind) = Kind::of(t) else { return };
    let n = (data[1] >> 2) as usize % 5;
    let body = &data[2..];
    match data[1] & 3 {
        0 => {
            let mut d = pmix::data::pack::Decoder::new(body);
            // SAFETY: a new allocation of the decoder's, freed right here.
            if let Ok((p, n)) = unsafe { d.elems(kind, n, 0) } {
                // SAFETY: what elems returned: `n` valid elements of `kind`.
                unsafe { pmix::data::elem::free_array(kind, p, n) };
            }
        }
        1 => {
            let Ok(dst) = pmix::data::elem::alloc_array(kind, 1) else { return };
            let mut d = pmix::data::v41::Decoder::new(body);
            // SAFETY: `dst` is a zeroed element of `kind`; on error it holds
            // nothing, on success one element, freed here either way.
            unsafe {
                let _ = d.elem(t, dst, 0);
                pmix::data::elem::free_array(kind, dst, 1);
            }
        }
        _ => {
            // SAFETY: a zeroed buffer loaded with a copy of the bytes,
            // unpacked into storage of the right type and size, everything
            // freed here.
            unsafe {
                let mut buf: pmix_data_buffer_t = core::mem::zeroed();
                let mut copy = body.to_vec();
                let bo = pmix_byte_object_t { bytes: copy.as_mut_ptr() as *mut core::ffi::c_char, size: copy.len() };
                if pmix::ffi::data_buffer::PMIx_Data_embed(&mut buf, &bo) != PMIX_SUCCESS {
                    return;
                }
                let cap = 4usize;
                let Ok(dest) = pmix::data::elem::alloc_array(kind, cap) else { return };
                let mut count = 1 + (n % cap) as i32;
                let _ = pmix::ffi::data_buffer::PMIx_Data_unpack(core::ptr::null(), &mut buf, dest as *mut core::ffi::c_void, &mut count, t);
                pmix::data::elem::free_array(kind, dest, cap);
                pmix::ffi::data_objects::PMIx_Data_buffer_destruct(&mut buf);
            }
        }
    }
});

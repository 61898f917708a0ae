//! The boundary toolkit every `extern "C"` function uses.

use crate::guard::PanicDefault;

thread_local! {
    /// How many API entries this thread is inside (a callback may call the API).
    static IN_ENTRY: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Counts this thread into an entry for as long as it lives (unwinding too).
struct EntryScope;
impl EntryScope {
    fn enter() -> EntryScope {
        IN_ENTRY.with(|n| n.set(n.get() + 1));
        EntryScope
    }
}
impl Drop for EntryScope {
    fn drop(&mut self) {
        IN_ENTRY.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

/// Run a C caller's completion callback: at once when it comes from a
/// progress thread's own work, later when it would otherwise run inside an
/// API call on the caller's stack (an answer known at once: cached data, an
/// error). So a callback never runs inside the call that registered it.
pub fn complete(f: impl FnOnce() + Send + 'static) {
    if IN_ENTRY.with(|n| n.get()) > 0 {
        crate::facade::later(f);
    } else {
        f();
    }
}

/// Run an export's body behind a panic boundary (unwinding never crosses
/// into C), counted as "inside an API call" for `complete`.
pub fn guard<R: PanicDefault>(name: &str, f: impl FnOnce() -> R) -> R {
    let _scope = EntryScope::enter();
    crate::guard::catch(name, f)
}

/// `entry!("PMIx_X", { body })`: the panic boundary plus a trace line at PMIX_DEBUG >= 10.
///
/// The body is one unsafe block: an export's work is reading and writing
/// through its C caller's pointers, under the contract of its `# Safety`
/// section (the PMIx API's: NULL only where allowed, otherwise valid for the
/// counts given, and alive until the callback for what a callback returns).
macro_rules! entry {
    ($name:expr, $body:block) => {{
        $crate::pmix_debug!(10, "-> {}", $name);
        $crate::ffi::boundary::guard($name, || {
            #[allow(unused_unsafe)]
            // SAFETY: the export's caller upholds its # Safety contract (see above).
            let r = unsafe { $body };
            r
        })
    }};
}

/// Status-returning entry: like `entry!`, and a failing status is logged at PMIX_DEBUG >= 5.
macro_rules! status_entry {
    ($name:expr, $body:block) => {{
        $crate::pmix_debug!(10, "-> {}", $name);
        let rc: $crate::abi::pmix_status_t = $crate::ffi::boundary::guard($name, || {
            #[allow(unused_unsafe)]
            // SAFETY: the export's caller upholds its # Safety contract (see `entry!`).
            let r = unsafe { $body };
            r
        });
        if rc < 0 && rc != $crate::abi::PMIX_OPERATION_SUCCEEDED {
            $crate::pmix_debug!(5, "<- {} [{}]", $name, $crate::strings::error_name(rc));
        }
        rc
    }};
}

/// The procs of a caller's array, or an early return of the error (a count
/// no memory could hold is PMIX_ERR_BAD_PARAM, never an abort).
macro_rules! procs {
    ($p:expr, $n:expr) => {
        match $crate::owned::try_procs_of($p, $n) {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
}

/// An entry point a later issue implements: answers PMIX_ERR_NOT_SUPPORTED and
/// fires no callback. The README status table is checked against these.
macro_rules! not_yet {
    ($name:expr) => {{
        $crate::pmix_debug!(5, "{}: not supported yet", $name);
        $crate::abi::PMIX_ERR_NOT_SUPPORTED
    }};
}

/// A `void` entry point a later issue implements: does nothing and logs.
#[allow(unused_macros)]
macro_rules! not_yet_void {
    ($name:expr) => {{
        $crate::pmix_debug!(5, "{}: not supported yet", $name);
    }};
}

/// Early-return `PMIX_ERR_BAD_PARAM` (logged) when a required pointer is NULL.
macro_rules! require {
    ($name:expr, $cond:expr) => {
        if !($cond) {
            $crate::pmix_debug!(1, "{}: bad parameter: {}", $name, stringify!($cond));
            return $crate::abi::PMIX_ERR_BAD_PARAM;
        }
    };
}

/// Log a NULL argument and leave the entry: `null_check!(NAME, p, q)` in a
/// `void` entry, `null_check!(NAME, p => value)` where something is returned.
macro_rules! null_check {
    ($name:expr, $($p:ident),+) => {
        $( if $p.is_null() {
            $crate::pmix_debug!(1, "{}: bad parameter: {} is NULL", $name, stringify!($p));
            return;
        } )+
    };
    ($name:expr, $p:ident => $ret:expr) => {
        if $p.is_null() {
            $crate::pmix_debug!(1, "{}: bad parameter: {} is NULL", $name, stringify!($p));
            return $ret;
        }
    };
}

/// A raw pointer carried to the progress thread (cbdata, caller storage).
pub struct SendPtr<T>(pub *mut T);
// (by hand: a derive would ask T itself to be Copy)
impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
// SAFETY: the C caller owns what it points to and keeps it valid until the
// callback, as the PMIx API requires; we only hand it back.
unsafe impl<T> Send for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the whole Send wrapper).
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// Fire a C op callback (if any) with `status`.
///
/// # Safety
/// `cb`/`cbdata` are the caller's.
pub unsafe fn fire_op(cb: crate::abi::pmix_op_cbfunc_t, status: crate::abi::pmix_status_t, cbdata: SendPtr<core::ffi::c_void>) {
    if let Some(f) = cb {
        // SAFETY: the caller's callback with its own cbdata (the contract above).
        complete(move || unsafe { f(status, cbdata.get()) });
    }
}

/// `n` elements at `p`, borrowed; NULL (or `n` = 0) is the empty slice.
///
/// # Safety
/// `p` is NULL or points to `n` valid elements that outlive the slice and
/// that nothing writes while it is borrowed.
pub unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: non-NULL here, and the caller vouches for `n` valid elements.
    unsafe { core::slice::from_raw_parts(p, n) }
}

/// `n` elements at `p`, borrowed mutably; NULL (or `n` = 0) is the empty slice.
///
/// # Safety
/// `p` is NULL or points to `n` valid elements that outlive the slice and
/// that nothing else reads or writes while it is borrowed.
pub unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> &'a mut [T] {
    if p.is_null() || n == 0 {
        return &mut [];
    }
    // SAFETY: non-NULL here, and the caller vouches for `n` valid elements.
    unsafe { core::slice::from_raw_parts_mut(p, n) }
}

/// Store `value` through an out-pointer the caller may pass as NULL.
/// Returns whether it was stored.
///
/// # Safety
/// `out` is NULL or valid for a write of `T`.
pub unsafe fn store<T>(out: *mut T, value: T) -> bool {
    if out.is_null() {
        return false;
    }
    // SAFETY: non-NULL, and the caller vouches it is writable.
    unsafe { out.write(value) };
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_is_empty_and_store_skips_null() {
        // SAFETY: NULL is allowed by each helper's contract.
        unsafe {
            assert!(slice::<u32>(core::ptr::null(), 3).is_empty());
            assert!(slice_mut::<u32>(core::ptr::null_mut(), 3).is_empty());
            assert!(!store::<u32>(core::ptr::null_mut(), 1));
        }
        let v = [1u32, 2, 3];
        // SAFETY: a live array of 3.
        assert_eq!(unsafe { slice(v.as_ptr(), 3) }, &v);
        let mut x = 0u32;
        // SAFETY: a live local.
        assert!(unsafe { store(&mut x, 7) });
        assert_eq!(x, 7);
    }
}

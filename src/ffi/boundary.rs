//! The boundary toolkit every `extern "C"` function uses.

use crate::abi::*;

/// What a C entry returns when the Rust side panicked.
pub trait PanicDefault {
    fn panic_default() -> Self;
}
impl PanicDefault for pmix_status_t {
    fn panic_default() -> Self {
        PMIX_ERROR
    }
}
impl PanicDefault for () {
    fn panic_default() -> Self {}
}
impl PanicDefault for bool {
    fn panic_default() -> Self {
        false
    }
}
impl<T> PanicDefault for *const T {
    fn panic_default() -> Self {
        core::ptr::null()
    }
}
impl<T> PanicDefault for *mut T {
    fn panic_default() -> Self {
        core::ptr::null_mut()
    }
}

/// Panic messages go to stderr only under PMIX_DEBUG (the library never
/// writes otherwise). The std inside this cdylib is private to it, so the
/// hook does not touch the host program's own Rust code, if any.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            crate::pmix_debug!(1, "internal panic: {info}");
        }));
    });
}

/// Run `f` behind a panic boundary: unwinding never crosses into C.
pub fn guard<R: PanicDefault>(name: &str, f: impl FnOnce() -> R) -> R {
    quiet_panics();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            crate::pmix_debug!(1, "{name}: internal panic caught at the C boundary");
            R::panic_default()
        }
    }
}

/// `entry!("PMIx_X", { body })`: the panic boundary plus a trace line at PMIX_DEBUG >= 10.
macro_rules! entry {
    ($name:expr, $body:block) => {{
        $crate::pmix_debug!(10, "-> {}", $name);
        $crate::ffi::boundary::guard($name, || $body)
    }};
}

/// Status-returning entry: like `entry!`, and a failing status is logged at PMIX_DEBUG >= 5.
macro_rules! status_entry {
    ($name:expr, $body:block) => {{
        $crate::pmix_debug!(10, "-> {}", $name);
        let rc: $crate::abi::pmix_status_t = $crate::ffi::boundary::guard($name, || $body);
        if rc < 0 && rc != $crate::abi::PMIX_OPERATION_SUCCEEDED {
            $crate::pmix_debug!(5, "<- {} [{}]", $name, $crate::strings::error_name(rc));
        }
        rc
    }};
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


/// A raw pointer carried to the progress thread (cbdata, caller storage).
#[derive(Clone, Copy)]
pub struct SendPtr<T>(pub *mut T);
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
        f(status, cbdata.0);
    }
}

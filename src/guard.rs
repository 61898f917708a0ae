//! The panic boundary of every function C calls: exports (through
//! `ffi::boundary`) and the callbacks this library hands to C code (host
//! upcall completions, event-handler completions, release functions). A
//! panic inside becomes an error answer and a PMIX_DEBUG line; it never
//! unwinds into C (which would abort the host: Slurm's stepd, mpirun).

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
/// A fast path that panicked answers "not here": the guarded slow path runs.
impl<T> PanicDefault for Option<T> {
    fn panic_default() -> Self {
        None
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

/// Run `f`; a panic inside becomes `R`'s error answer, logged under `name`.
pub fn catch<R: PanicDefault>(name: &str, f: impl FnOnce() -> R) -> R {
    quiet_panics();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            crate::pmix_debug!(1, "{name}: internal panic caught at the C boundary");
            R::panic_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic inside is caught by the unwinder this library links (GCC's
    /// static one when the build found it) and becomes the error answer;
    /// the next call runs normally.
    #[test]
    fn a_panic_becomes_the_error_answer() {
        let st: pmix_status_t = catch("test", || panic!("on purpose"));
        assert_eq!(st, PMIX_ERROR);
        let p: *const u8 = catch("test", || -> *const u8 { panic!("again") });
        assert!(p.is_null());
        assert_eq!(catch("test", || PMIX_SUCCESS), PMIX_SUCCESS);
    }
}

//! Memory handed to C: always libc `malloc`/`calloc`, so that `free()` and the
//! header macros (PMIX_INFO_FREE, PMIX_VALUE_RELEASE, ...) release it.

use core::ffi::{c_char, c_void, CStr};
use core::ptr;

/// `calloc(n, size)`; NULL when `n * size` overflows or memory is exhausted.
/// A zero-length request gives NULL, as the PMIx macros do.
pub fn calloc_array(n: usize, size: usize) -> *mut c_void {
    if n == 0 || size == 0 || n.checked_mul(size).is_none() {
        return ptr::null_mut();
    }
    // SAFETY: calloc with a checked, non-zero size.
    unsafe { libc::calloc(n, size) }
}

/// `calloc` of one `T`.
pub fn calloc_one<T>() -> *mut T {
    calloc_array(1, core::mem::size_of::<T>()) as *mut T
}

/// A malloc'd copy of `bytes` (NULL for an empty slice).
pub fn dup_bytes(bytes: &[u8]) -> *mut c_char {
    if bytes.is_empty() {
        return ptr::null_mut();
    }
    // SAFETY: malloc of a non-zero size; the copy stays inside both regions.
    unsafe {
        let p = libc::malloc(bytes.len()) as *mut u8;
        if !p.is_null() {
            ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        }
        p as *mut c_char
    }
}

/// A malloc'd NUL-terminated copy of `s`.
pub fn strdup_bytes(s: &[u8]) -> *mut c_char {
    // SAFETY: malloc of len+1; the copy and the NUL stay inside it.
    unsafe {
        let p = libc::malloc(s.len() + 1) as *mut u8;
        if p.is_null() {
            return ptr::null_mut();
        }
        ptr::copy_nonoverlapping(s.as_ptr(), p, s.len());
        *p.add(s.len()) = 0;
        p as *mut c_char
    }
}

/// `strdup` that passes NULL through.
///
/// # Safety
/// `s` is NULL or a NUL-terminated string.
pub unsafe fn strdup_opt(s: *const c_char) -> *mut c_char {
    // SAFETY: the caller upholds the contract above: `s` is NULL or a NUL-terminated string.
    unsafe {
        if s.is_null() {
            ptr::null_mut()
        } else {
            libc::strdup(s)
        }
    }
}

/// `free` that accepts NULL.
///
/// # Safety
/// `p` is NULL or came from libc malloc/calloc/realloc and is not used after.
pub unsafe fn free<T>(p: *mut T) {
    // SAFETY: the caller upholds the contract above: `p` is NULL or came from libc malloc/calloc/realloc and is not used after.
    unsafe {
        if !p.is_null() {
            libc::free(p as *mut c_void);
        }
    }
}

/// The bytes of a C string, or None for NULL.
///
/// # Safety
/// `s` is NULL or NUL-terminated and outlives the returned slice.
pub unsafe fn cstr_bytes<'a>(s: *const c_char) -> Option<&'a [u8]> {
    // SAFETY: the caller upholds the contract above: `s` is NULL or NUL-terminated and outlives the returned slice.
    unsafe {
        if s.is_null() {
            None
        } else {
            Some(CStr::from_ptr(s).to_bytes())
        }
    }
}

/// Length of a fixed-size C char array up to its first NUL (or the whole array).
pub fn bounded_len(buf: &[c_char]) -> usize {
    buf.iter().position(|&c| c == 0).unwrap_or(buf.len())
}

/// Copy `src` (at most `dst.len() - 1` bytes) into a fixed char array, NUL-terminated.
pub fn load_fixed(dst: &mut [c_char], src: &[u8]) {
    let n = src.len().min(dst.len() - 1);
    // SAFETY: n < dst.len() and n <= src.len(); c_char and u8 have one layout.
    unsafe {
        ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr() as *mut u8, n);
        ptr::write_bytes(dst.as_mut_ptr().add(n), 0, dst.len() - n);
    }
}

/// Read a key/nspace given by a C pointer, bounded by `max` bytes (no NUL needed
/// within the bound: a 512-byte key without NUL is cut, never over-read).
///
/// # Safety
/// `s` is NULL or points to at least min(max, strlen+1) readable bytes.
pub unsafe fn bounded_cstr<'a>(s: *const c_char, max: usize) -> Option<&'a [u8]> {
    // SAFETY: the caller upholds the contract above: `s` is NULL or points to at least min(max, strlen+1) readable bytes.
    unsafe {
        if s.is_null() {
            return None;
        }
        let n = libc::strnlen(s, max);
        Some(core::slice::from_raw_parts(s as *const u8, n))
    }
}

/// Count the entries of a NULL-terminated argv.
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of pointers.
pub unsafe fn argv_len(argv: *const *mut c_char) -> usize {
    // SAFETY: the caller upholds the contract above: `argv` is NULL or a NULL-terminated array of pointers.
    unsafe {
        if argv.is_null() {
            return 0;
        }
        let mut n = 0;
        while !(*argv.add(n)).is_null() {
            n += 1;
        }
        n
    }
}

/// Deep copy of a NULL-terminated argv (NULL stays NULL).
///
/// # Safety
/// `argv` is NULL or a NULL-terminated array of C strings.
pub unsafe fn argv_dup(argv: *const *mut c_char) -> *mut *mut c_char {
    // SAFETY: the caller upholds the contract above: `argv` is NULL or a NULL-terminated array of C strings.
    unsafe {
        if argv.is_null() {
            return ptr::null_mut();
        }
        let n = argv_len(argv);
        let out = calloc_array(n + 1, core::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
        if out.is_null() {
            return out;
        }
        for i in 0..n {
            *out.add(i) = libc::strdup(*argv.add(i));
        }
        out
    }
}

/// Free a NULL-terminated argv and its strings.
///
/// # Safety
/// `argv` is NULL or a malloc'd NULL-terminated array of malloc'd strings.
pub unsafe fn argv_free(argv: *mut *mut c_char) {
    // SAFETY: the caller upholds the contract above: `argv` is NULL or a malloc'd NULL-terminated array of malloc'd strings.
    unsafe {
        if argv.is_null() {
            return;
        }
        let mut i = 0;
        while !(*argv.add(i)).is_null() {
            libc::free(*argv.add(i) as *mut c_void);
            i += 1;
        }
        libc::free(argv as *mut c_void);
    }
}

/// Build a malloc'd NULL-terminated argv of copies of `items` (an empty list
/// gives an array holding only the NULL); NULL when out of memory.
pub fn argv_from<S: AsRef<[u8]>>(items: &[S]) -> *mut *mut c_char {
    let out = calloc_array(items.len() + 1, core::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
    if out.is_null() {
        return out;
    }
    for (i, s) in items.iter().enumerate() {
        let copy = strdup_bytes(s.as_ref());
        if copy.is_null() {
            // Out of memory: no half array (it would end early, silently).
            // SAFETY: `out` is ours, NULL-terminated after entry i - 1.
            unsafe { argv_free(out) };
            return ptr::null_mut();
        }
        // SAFETY: out has items.len()+1 slots and i < items.len().
        unsafe { *out.add(i) = copy };
    }
    out
}

/// Set `key=value` in a malloc'd NULL-terminated environment array, replacing
/// an existing entry for `key` or appending (a NULL array is created).
///
/// # Safety
/// `*env` is NULL or a malloc'd NULL-terminated array of malloc'd strings.
pub unsafe fn env_set(env: &mut *mut *mut c_char, key: &str, value: &str) -> Result<(), crate::abi::pmix_status_t> {
    // SAFETY: the caller upholds the contract above: `*env` is NULL or a malloc'd NULL-terminated array of malloc'd strings.
    unsafe {
        let entry = strdup_bytes(format!("{key}={value}").as_bytes());
        if entry.is_null() {
            return Err(crate::abi::PMIX_ERR_NOMEM);
        }
        let n = argv_len(*env);
        let prefix = format!("{key}=");
        for i in 0..n {
            let cur = *(*env).add(i);
            if cstr_bytes(cur).is_some_and(|b| b.starts_with(prefix.as_bytes())) {
                libc::free(cur as *mut c_void);
                *(*env).add(i) = entry;
                return Ok(());
            }
        }
        let grown = libc::realloc(*env as *mut c_void, (n + 2) * core::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
        if grown.is_null() {
            libc::free(entry as *mut c_void);
            return Err(crate::abi::PMIX_ERR_NOMEM);
        }
        *grown.add(n) = entry;
        *grown.add(n + 1) = ptr::null_mut();
        *env = grown;
        Ok(())
    }
}

/// The value of `key` in a NULL-terminated environment array.
///
/// # Safety
/// As `env_set`.
pub unsafe fn env_get(env: *mut *mut c_char, key: &str) -> Option<String> {
    // SAFETY: the caller upholds the contract above: As `env_set`.
    unsafe {
        let prefix = format!("{key}=");
        for i in 0..argv_len(env) {
            if let Some(b) = cstr_bytes(*env.add(i)) {
                if let Some(v) = b.strip_prefix(prefix.as_bytes()) {
                    return Some(String::from_utf8_lossy(v).into_owned());
                }
            }
        }
        None
    }
}

/// Remove `key` from a NULL-terminated environment array.
///
/// # Safety
/// As `env_set`.
pub unsafe fn env_unset(env: *mut *mut c_char, key: &str) {
    // SAFETY: the caller upholds the contract above: As `env_set`.
    unsafe {
        if env.is_null() {
            return;
        }
        let prefix = format!("{key}=");
        let n = argv_len(env);
        let mut w = 0;
        for r in 0..n {
            let cur = *env.add(r);
            if cstr_bytes(cur).is_some_and(|b| b.starts_with(prefix.as_bytes())) {
                libc::free(cur as *mut c_void);
            } else {
                *env.add(w) = cur;
                w += 1;
            }
        }
        *env.add(w) = ptr::null_mut();
    }
}

/// One environment edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvOp {
    Set(String, String),
    /// Set only when absent.
    Add(String, String),
    Unset(String),
    Prepend(String, String, char),
    Append(String, String, char),
}

/// Apply setup edits (set, add, unset, prepend, append) to a C environment array.
///
/// # Safety
/// As `env_set`.
pub unsafe fn env_apply(env: &mut *mut *mut c_char, ops: &[EnvOp]) -> Result<(), crate::abi::pmix_status_t> {
    // SAFETY: the caller upholds the contract above: As `env_set`.
    unsafe {
        for op in ops {
            match op {
                EnvOp::Set(k, v) => env_set(env, k, v)?,
                EnvOp::Add(k, v) => {
                    if env_get(*env, k).is_none() {
                        env_set(env, k, v)?
                    }
                }
                EnvOp::Unset(k) => env_unset(*env, k),
                EnvOp::Prepend(k, v, s) | EnvOp::Append(k, v, s) => {
                    let new = match env_get(*env, k) {
                        Some(cur) if !cur.is_empty() => {
                            if matches!(op, EnvOp::Prepend(..)) {
                                format!("{v}{s}{cur}")
                            } else {
                                format!("{cur}{s}{v}")
                            }
                        }
                        _ => v.clone(),
                    };
                    env_set(env, k, &new)?
                }
            }
        }
        Ok(())
    }
}

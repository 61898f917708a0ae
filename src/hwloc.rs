//! The process's hwloc topology (PMIx_Load_topology).
//!
//! libhwloc (Debian's libhwloc15, the library OpenPMIx 4.2.2 links) is
//! opened with dlopen(3) the first time a topology is asked for, never at
//! init: programs that never ask pay nothing, and rpmix has no link-time
//! dependency on hwloc. A program that links hwloc itself gets the same
//! library from dlopen, so the pointer we hand out works with its hwloc
//! calls. A few symbols are used (discovery, and the object walk of
//! PMIx_Compute_distances); a small declaration block is all it takes,
//! where a bindings crate would bring hwloc's whole API and a build-time
//! dependency on its headers. The walk reads hwloc 2's object layout by
//! offset (`obj`), checked against hwloc.h by make test.
//!
//! The topology is discovered once per process and shared by every
//! PMIx_Load_topology; PMIx_Topology_destruct releases the caller's copy of
//! the source string and never destroys the shared topology, which is not
//! one of rpmix's tagged objects (`data::cpuset`). OpenPMIx 4.2.2 destroys
//! it, so a second Load then returns a dangling pointer.

use core::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use crate::abi::*;

type Topology = *mut c_void;

/// The shared topology and its source string ("hwloc:<version>").
struct Loaded {
    topology: usize,
    source: String,
}

static LOADED: OnceLock<Result<Loaded, pmix_status_t>> = OnceLock::new();

use crate::hwlib::{library, symbol};

fn discover() -> Result<Loaded, pmix_status_t> {
    let lib = library();
    if lib.is_null() {
        crate::pmix_debug!(1, "PMIx_Load_topology: libhwloc.so.15 cannot be opened (install libhwloc15)");
        return Err(PMIX_ERR_NOT_SUPPORTED);
    }
    // SAFETY: the C signatures of hwloc 2.x's functions.
    let (version, by_depth, attrs) = unsafe {
        (
            symbol::<unsafe extern "C" fn() -> c_uint>(lib, c"hwloc_get_api_version"),
            symbol::<unsafe extern "C" fn(Topology, c_int, c_uint) -> *mut c_void>(lib, c"hwloc_get_obj_by_depth"),
            symbol::<unsafe extern "C" fn(*mut c_char, usize, *mut c_void, *const c_char, c_int) -> c_int>(lib, c"hwloc_obj_attr_snprintf"),
        )
    };
    let Some(version) = version else {
        crate::pmix_debug!(1, "PMIx_Load_topology: libhwloc.so.15 lacks the hwloc 2 API");
        return Err(PMIX_ERR_NOT_SUPPORTED);
    };
    let t = crate::hwlib::discover()?;
    // The release (e.g. 2.9.0, what OpenPMIx's source string names) is the
    // root object's hwlocVersion info; else the API version (e.g. 2.8.0).
    let release = by_depth.zip(attrs).and_then(|(by_depth, attrs)| {
        let mut buf = [0u8; 4096];
        // SAFETY: the root object of the topology we loaded; attrs writes at
        // most buf.len() bytes, NUL-terminated.
        let n = unsafe {
            let root = by_depth(t, 0, 0);
            if root.is_null() {
                return None;
            }
            attrs(buf.as_mut_ptr() as *mut c_char, buf.len(), root, c" ".as_ptr(), 1)
        };
        let text = core::str::from_utf8(&buf[..(n.max(0) as usize).min(buf.len() - 1)]).ok()?;
        text.split(' ').find_map(|kv| kv.strip_prefix("hwlocVersion=")).map(str::to_string)
    });
    let source = release.unwrap_or_else(|| {
        // SAFETY: no arguments.
        let v = unsafe { version() };
        format!("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff)
    });
    Ok(Loaded { topology: t as usize, source: format!("hwloc:{source}") })
}

/// Where the process's topology comes from, in the order
/// PMIx_Load_topology looks (the first call decides, for the process).
pub enum Source {
    /// An hwloc topology the host handed its server (PMIX_TOPOLOGY2 /
    /// PMIX_TOPOLOGY at server init): used as it is, never destroyed.
    Given { topology: usize, source: String },
    /// A topology as hwloc XML in the job data (PMIX_HWLOC_XML_V2 / _V1,
    /// PMIX_LOCAL_TOPO): imported once.
    Xml(String),
    /// hwloc's discovery of this machine.
    Discover,
}

/// The process's topology: the hwloc pointer and a malloc'd copy of its
/// source string, for a pmix_topology_t. The first call picks its source
/// (`pick`); an XML that does not load falls back to discovery.
pub fn process_topology(pick: impl FnOnce() -> Source) -> Result<(*mut c_void, *mut c_char), pmix_status_t> {
    let l = LOADED
        .get_or_init(|| match pick() {
            Source::Given { topology, source } => Ok(Loaded { topology, source }),
            // (the process's topology, shared by every load: not recorded as a value's own)
            Source::Xml(xml) => crate::hwlib::import_xml(xml.as_bytes(), true)
                .map(|t| Loaded { topology: t as usize, source: "hwloc".to_string() })
                .or_else(|_| discover()),
            Source::Discover => discover(),
        })
        .as_ref()
        .map_err(|e| *e)?;
    let source = crate::cmem::strdup_bytes(l.source.as_bytes());
    if source.is_null() {
        return Err(PMIX_ERR_NOMEM);
    }
    Ok((l.topology as *mut c_void, source as *mut c_char))
}

// ---- PMIx_Compute_distances ----------------------------------------------

use crate::hwlib::obj;
/// hwloc's object and OS-device types and the I/O filter used here.
const HWLOC_OBJ_PU: c_int = 3;
const HWLOC_OBJ_OS_DEVICE: c_int = 16;
const OSDEV_GPU: c_int = 1;
const OSDEV_NETWORK: c_int = 2;
const OSDEV_OPENFABRICS: c_int = 3;

/// The hwloc calls distances need (resolved once, with the topology's library).
struct Api {
    get_depth: unsafe extern "C" fn(Topology) -> c_int,
    nbobjs_by_depth: unsafe extern "C" fn(Topology, c_int) -> c_uint,
    obj_by_depth: unsafe extern "C" fn(Topology, c_int, c_uint) -> *mut c_void,
    type_depth: unsafe extern "C" fn(Topology, c_int) -> c_int,
    isincluded: unsafe extern "C" fn(*const c_void, *const c_void) -> c_int,
    intersects: unsafe extern "C" fn(*const c_void, *const c_void) -> c_int,
    bitmap_alloc: unsafe extern "C" fn() -> *mut c_void,
    bitmap_set: unsafe extern "C" fn(*mut c_void, c_uint) -> c_int,
    bitmap_free: unsafe extern "C" fn(*mut c_void),
}

static API: OnceLock<Option<Api>> = OnceLock::new();

fn api() -> Option<&'static Api> {
    API.get_or_init(|| {
        let lib = library();
        if lib.is_null() {
            return None;
        }
        // SAFETY: the C signatures of hwloc 2.x's functions.
        unsafe {
            Some(Api {
                get_depth: symbol(lib, c"hwloc_topology_get_depth")?,
                nbobjs_by_depth: symbol(lib, c"hwloc_get_nbobjs_by_depth")?,
                obj_by_depth: symbol(lib, c"hwloc_get_obj_by_depth")?,
                type_depth: symbol(lib, c"hwloc_get_type_depth")?,
                isincluded: symbol(lib, c"hwloc_bitmap_isincluded")?,
                intersects: symbol(lib, c"hwloc_bitmap_intersects")?,
                bitmap_alloc: symbol(lib, c"hwloc_bitmap_alloc")?,
                bitmap_set: symbol(lib, c"hwloc_bitmap_set")?,
                bitmap_free: symbol(lib, c"hwloc_bitmap_free")?,
            })
        }
    })
    .as_ref()
}

/// A field of an hwloc object.
///
/// # Safety
/// `o` is a live hwloc object and `T` the field's type at `off`.
unsafe fn field<T: Copy>(o: *const c_void, off: usize) -> T {
    // SAFETY: the caller upholds the contract above.
    unsafe { core::ptr::read_unaligned((o as *const u8).add(off) as *const T) }
}

/// A C string field (None for NULL).
///
/// # Safety
/// `p` is NULL or NUL-terminated.
unsafe fn text(p: *const c_char) -> Option<String> {
    // SAFETY: the caller upholds the contract above.
    (!p.is_null()).then(|| unsafe { core::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// One device and how far the CPUs are from it.
pub struct Distance {
    pub uuid: String,
    pub osname: String,
    pub kind: pmix_device_type_t,
    pub mindist: u16,
    pub maxdist: u16,
}

/// A CPU set for the distance walk: the caller's hwloc bitmap, or one
/// made from rpmix's own CPU list (freed on drop).
pub enum Cpus {
    Hwloc(*const c_void),
    List(crate::topology::CpuSet),
}

/// The distances from `cpus` to the network, OpenFabrics and GPU devices of
/// `topology` (hwloc), as OpenPMIx 4.2.2 measures them: the depth of the
/// deepest object holding every CPU of the set, against the device's nearest
/// ancestor with CPUs; their common ancestor's depth, turned around so that
/// nearer is smaller (a device that only shares the machine is placed
/// beyond every package). `kinds` selects the device types; `ids` (names or
/// UUIDs) the devices. NOT_FOUND when no device qualifies.
pub fn distances(topology: *mut c_void, cpus: &Cpus, kinds: pmix_device_type_t, ids: &[String], hostname: &str) -> Result<Vec<Distance>, pmix_status_t> {
    let a = api().ok_or(PMIX_ERR_NOT_SUPPORTED)?;
    let t = topology as Topology;
    // SAFETY: an hwloc bitmap we allocate and free here, or the caller's.
    let (bitmap, owned) = unsafe {
        match cpus {
            Cpus::Hwloc(b) => (*b, false),
            Cpus::List(set) => {
                let b = (a.bitmap_alloc)();
                if b.is_null() {
                    return Err(PMIX_ERR_NOMEM);
                }
                for c in set {
                    (a.bitmap_set)(b, *c);
                }
                (b as *const c_void, true)
            }
        }
    };
    // SAFETY: `t` is a loaded hwloc topology and `bitmap` an hwloc bitmap;
    // every object read comes from that topology.
    let result = unsafe { walk(a, t, bitmap, kinds, ids, hostname) };
    if owned {
        // SAFETY: allocated above.
        unsafe { (a.bitmap_free)(bitmap as *mut c_void) };
    }
    result
}

/// # Safety
/// `t` is a loaded hwloc topology, `bitmap` an hwloc bitmap.
unsafe fn walk(a: &Api, t: Topology, bitmap: *const c_void, kinds: pmix_device_type_t, ids: &[String], hostname: &str) -> Result<Vec<Distance>, pmix_status_t> {
    // SAFETY: the caller upholds the contract above; objects are read by the
    // offsets of `obj` (hwloc 2's ABI).
    unsafe {
        let depth = (a.get_depth)(t);
        // the deepest object holding the whole set
        let mut holder: *mut c_void = core::ptr::null_mut();
        for d in 1..depth {
            let width = (a.nbobjs_by_depth)(t, d);
            let found = (0..width).map(|w| (a.obj_by_depth)(t, d, w)).find(|o| {
                let cs: *const c_void = field(*o, obj::CPUSET);
                !o.is_null() && !cs.is_null() && (a.isincluded)(bitmap, cs) != 0
            });
            match found {
                Some(o) => holder = o,
                None => break,
            }
        }
        if holder.is_null() {
            return Err(PMIX_ERR_NOT_AVAILABLE); // only the whole machine holds it
        }
        let pu_depth = (a.type_depth)(t, HWLOC_OBJ_PU);
        let pus: Vec<*mut c_void> = (0..(a.nbobjs_by_depth)(t, pu_depth)).map(|w| (a.obj_by_depth)(t, pu_depth, w)).collect();
        let osdev_depth = (a.type_depth)(t, HWLOC_OBJ_OS_DEVICE);
        let mut out = Vec::new();
        for (hw, kind) in [(OSDEV_GPU, PMIX_DEVTYPE_GPU), (OSDEV_NETWORK, PMIX_DEVTYPE_NETWORK), (OSDEV_OPENFABRICS, PMIX_DEVTYPE_OPENFABRICS)] {
            if kinds & kind == 0 {
                continue;
            }
            let mut dev = (a.obj_by_depth)(t, osdev_depth, 0);
            while !dev.is_null() {
                let this = dev;
                dev = field(this, obj::NEXT_COUSIN);
                let attr: *const c_int = field(this, obj::ATTR);
                if attr.is_null() || *attr != hw {
                    continue;
                }
                let name = text(field(this, obj::NAME)).unwrap_or_default();
                let info = |key: &str| -> Option<String> {
                    let infos: *const [*const c_char; 2] = field(this, obj::INFOS);
                    let n: c_uint = field(this, obj::INFOS_COUNT);
                    (0..n as usize).map(|i| *infos.add(i)).find(|kv| text(kv[0]).is_some_and(|k| k.eq_ignore_ascii_case(key))).and_then(|kv| text(kv[1]))
                };
                let uuid = match hw {
                    OSDEV_NETWORK => {
                        let addr = info("Address").ok_or(PMIX_ERROR)?;
                        match addr.matches(':').count() {
                            5 => format!("ipv4://{addr}"),
                            19 => format!("ipv6://{addr}"),
                            _ => return Err(PMIX_ERROR),
                        }
                    }
                    OSDEV_OPENFABRICS => {
                        let (node, sys) = (info("NodeGUID").ok_or(PMIX_ERROR)?, info("SysImageGUID").ok_or(PMIX_ERROR)?);
                        format!("fab://{node}::{sys}")
                    }
                    _ => {
                        if name.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("card")) {
                            continue; // the GPU's auxiliary card device
                        }
                        format!("gpu://{hostname}::{name}")
                    }
                };
                if !ids.is_empty() && !ids.iter().any(|i| i.eq_ignore_ascii_case(&name) || i.eq_ignore_ascii_case(&uuid)) {
                    continue;
                }
                // the device's nearest ancestor with CPUs
                let mut near = this;
                while !near.is_null() && field::<*const c_void>(near, obj::CPUSET).is_null() {
                    near = field(near, obj::PARENT);
                }
                if near.is_null() {
                    return Err(PMIX_ERR_NOT_FOUND);
                }
                let (mut mindist, mut maxdist) = (u32::MAX, 0u32);
                for pu in &pus {
                    let cs: *const c_void = field(*pu, obj::CPUSET);
                    if cs.is_null() || (a.intersects)(cs, bitmap) == 0 {
                        continue;
                    }
                    let common = common_ancestor(holder, near);
                    if common.is_null() {
                        return Err(PMIX_ERROR);
                    }
                    let cd: c_int = field(common, obj::DEPTH);
                    let dp = if cd == 0 { field::<c_int>(holder, obj::DEPTH) + depth } else { depth - cd } as u32;
                    mindist = mindist.min(dp);
                    maxdist = maxdist.max(dp);
                }
                out.push(Distance { uuid, osname: name, kind, mindist: mindist as u16, maxdist: maxdist as u16 });
            }
        }
        if out.is_empty() {
            return Err(PMIX_ERR_NOT_FOUND);
        }
        Ok(out)
    }
}

/// The deepest object above both `x` and `y` (objects with CPUs: depths >= 0).
///
/// # Safety
/// Both are live objects of one topology.
unsafe fn common_ancestor(mut x: *mut c_void, mut y: *mut c_void) -> *mut c_void {
    // SAFETY: the caller upholds the contract above.
    unsafe {
        while x != y && !x.is_null() && !y.is_null() {
            let (dx, dy): (c_int, c_int) = (field(x, obj::DEPTH), field(y, obj::DEPTH));
            if dx > dy {
                x = field(x, obj::PARENT);
            } else if dy > dx {
                y = field(y, obj::PARENT);
            } else {
                x = field(x, obj::PARENT);
                y = field(y, obj::PARENT);
            }
        }
        if x == y {
            x
        } else {
            core::ptr::null_mut()
        }
    }
}

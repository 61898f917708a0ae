//! CPU binding and locality without hwloc (Linux).
//!
//! - The calling process's or thread's binding (sched_getaffinity), as a
//!   CPU list.
//! - Locality strings in OpenPMIx's format, `SK0:L30:L20:L10:CR0:HT0:NM0`:
//!   for each level of the machine (package, L3, L2, L1 data cache, core,
//!   hardware thread, then NUMA node) the logical indices of the objects the
//!   CPU set touches, as a list (`0-1,3`). The machine is read from sysfs;
//!   logical indices follow the tree order hwloc uses (objects ordered by
//!   their parent's index, then by their first CPU).
//! - The relative locality of two such strings (PMIX_LOCALITY_SHARE_* bits).

use std::collections::BTreeSet;
use std::path::Path;

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet as KernelCpuSet};
use nix::unistd::Pid;

use crate::abi::*;
use crate::status::Res;

pub type CpuSet = BTreeSet<u32>;

/// The largest CPU (or object) number a list may name: lists come from
/// peers and callers, and each number is a set entry.
const MAX_ID: u32 = 65535;

/// A list such as `0-3,8` (or a hex mask such as `0x0f`); None when
/// malformed, empty, or naming a number above MAX_ID.
pub fn parse_list(text: &str) -> Option<CpuSet> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() > (MAX_ID as usize + 1) / 4 {
            return None;
        }
        let mut set = CpuSet::new();
        for (i, c) in hex.bytes().rev().enumerate() {
            let v = (c as char).to_digit(16)?;
            for bit in 0..4 {
                if v & (1 << bit) != 0 {
                    set.insert(i as u32 * 4 + bit);
                }
            }
        }
        return (!set.is_empty()).then_some(set);
    }
    let mut set = CpuSet::new();
    for part in t.split(',').filter(|p| !p.is_empty()) {
        let (a, b): (u32, u32) = match part.split_once('-') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let a = part.parse().ok()?;
                (a, a)
            }
        };
        if a > b || b > MAX_ID {
            return None;
        }
        set.extend(a..=b);
    }
    (!set.is_empty()).then_some(set)
}

/// `0-3,8`.
pub fn format_list(set: &CpuSet) -> String {
    let mut out = Vec::new();
    let mut it = set.iter().copied().peekable();
    while let Some(start) = it.next() {
        let mut end = start;
        while end.checked_add(1).is_some_and(|n| it.peek() == Some(&n)) {
            end += 1;
            it.next();
        }
        out.push(if start == end { start.to_string() } else { format!("{start}-{end}") });
    }
    out.join(",")
}

/// The CPUs the calling process (its main thread) or thread may run on.
pub fn binding(thread: bool) -> Res<CpuSet> {
    let who = if thread { Pid::from_raw(0) } else { nix::unistd::getpid() };
    let mask = sched_getaffinity(who).map_err(|_| PMIX_ERR_NOT_FOUND)?;
    Ok((0..KernelCpuSet::count()).filter(|c| mask.is_set(*c).unwrap_or(false)).map(|c| c as u32).collect())
}

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

/// The machine's objects per level, each level in logical order.
struct Machine {
    levels: Vec<(&'static str, Vec<CpuSet>)>,
    numa: Vec<(u32, CpuSet)>,
}

fn machine(root: &Path) -> Option<Machine> {
    let cpu_dir = root.join("devices/system/cpu");
    let online = parse_list(&read_trim(&cpu_dir.join("online"))?)?;
    let mut packages: std::collections::BTreeMap<u32, CpuSet> = Default::default();
    let mut cores: std::collections::BTreeMap<(u32, u32), CpuSet> = Default::default();
    let mut caches: [BTreeSet<CpuSet>; 3] = Default::default();
    for &c in &online {
        let d = cpu_dir.join(format!("cpu{c}"));
        let num = |f: &str| read_trim(&d.join("topology").join(f)).and_then(|s| s.parse::<i64>().ok()).filter(|v| *v >= 0).map(|v| v as u32);
        let pkg = num("physical_package_id").unwrap_or(0);
        let core = num("core_id").unwrap_or(c);
        packages.entry(pkg).or_default().insert(c);
        cores.entry((pkg, core)).or_default().insert(c);
        for k in 0..16 {
            let idx = d.join(format!("cache/index{k}"));
            let Some(level) = read_trim(&idx.join("level")).and_then(|s| s.parse::<usize>().ok()) else { break };
            let kind = read_trim(&idx.join("type")).unwrap_or_default();
            if !(1..=3).contains(&level) || kind == "Instruction" {
                continue;
            }
            if let Some(shared) = read_trim(&idx.join("shared_cpu_list")).and_then(|s| parse_list(&s)) {
                caches[level - 1].insert(shared.intersection(&online).copied().collect());
            }
        }
    }
    let raw: Vec<(&'static str, Vec<CpuSet>)> = vec![
        ("SK", packages.into_values().collect()),
        ("L3", caches[2].iter().cloned().collect()),
        ("L2", caches[1].iter().cloned().collect()),
        ("L1", caches[0].iter().cloned().collect()),
        ("CR", cores.into_values().collect()),
        ("HT", online.iter().map(|c| CpuSet::from([*c])).collect()),
    ];
    // Logical order: by the parent's logical index, then by the first CPU.
    let mut levels: Vec<(&'static str, Vec<CpuSet>)> = Vec::new();
    for (name, mut objs) in raw.into_iter().filter(|(_, o)| !o.is_empty()) {
        let parent_of = |first: u32| -> usize { levels.last().and_then(|(_, p)| p.iter().position(|s| s.contains(&first))).unwrap_or(0) };
        objs.retain(|o| !o.is_empty());
        objs.sort_by_key(|o| {
            let first = *o.iter().next().unwrap();
            (parent_of(first), first)
        });
        levels.push((name, objs));
    }
    let mut numa = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root.join("devices/system/node")) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_prefix("node").and_then(|n| n.parse::<u32>().ok()) else { continue };
            // (a node without CPUs still counts in the numbering)
            let cpus = read_trim(&e.path().join("cpulist")).and_then(|s| parse_list(&s)).unwrap_or_default();
            numa.push((id, cpus));
        }
    }
    numa.sort();
    Some(Machine { levels, numa })
}

/// The objects of one level of this machine ("CR": cores, "HT": hardware
/// threads, ...) in logical order, each as its CPUs; empty when unknown.
pub fn objects(level: &str) -> Vec<CpuSet> {
    this_machine().and_then(|m| m.levels.iter().find(|(n, _)| *n == level).map(|(_, o)| o.clone())).unwrap_or_default()
}

/// This machine, read from /sys once (a launcher asks for every rank).
fn this_machine() -> Option<&'static Machine> {
    static MACHINE: std::sync::OnceLock<Option<Machine>> = std::sync::OnceLock::new();
    MACHINE.get_or_init(|| machine(Path::new("/sys"))).as_ref()
}

/// Bind the calling thread (in a child between fork and exec: the process)
/// to `mask`. Only a syscall: safe after fork.
pub fn bind_self(mask: &KernelCpuSet) -> std::io::Result<()> {
    sched_setaffinity(Pid::from_raw(0), mask).map_err(std::io::Error::from)
}

/// The kernel mask of `cpus` (CPUs beyond the mask's capacity are left out).
pub fn mask_of(cpus: &CpuSet) -> KernelCpuSet {
    let mut m = KernelCpuSet::new();
    for c in cpus.iter() {
        let _ = m.set(*c as usize);
    }
    m
}

/// The locality string of `cpus` on this machine (None when the machine
/// cannot be read or the set touches none of it).
pub fn locality_string(cpus: &CpuSet) -> Option<String> {
    locality_string_of(this_machine()?, cpus)
}

fn locality_string_of(m: &Machine, cpus: &CpuSet) -> Option<String> {
    let mut tokens = Vec::new();
    for (name, objs) in &m.levels {
        let hit: CpuSet = objs.iter().enumerate().filter(|(_, o)| !o.is_disjoint(cpus)).map(|(i, _)| i as u32).collect();
        if !hit.is_empty() {
            tokens.push(format!("{name}{}", format_list(&hit)));
        }
    }
    // NUMA nodes by logical index: their rank in OS-number order.
    let nodes: CpuSet = m.numa.iter().enumerate().filter(|(_, (_, c))| !c.is_disjoint(cpus)).map(|(i, _)| i as u32).collect();
    if !nodes.is_empty() {
        tokens.push(format!("NM{}", format_list(&nodes)));
    }
    (!tokens.is_empty()).then(|| tokens.join(":"))
}

/// The levels of a locality string.
const LEVELS: [&str; 7] = ["SK", "L3", "L2", "L1", "CR", "HT", "NM"];

/// What two locality strings share (with or without OpenPMIx's `hwloc:`
/// prefix): PMIX_LOCALITY_SHARE_NODE, plus a bit per level whose index
/// lists intersect.
pub fn relative_locality(a: &str, b: &str) -> Res<pmix_locality_t> {
    fn tokens(s: &str) -> Res<Vec<(&str, CpuSet)>> {
        let s = s.strip_prefix("hwloc:").unwrap_or(s);
        s.split(':')
            .filter(|t| !t.is_empty())
            .map(|t| {
                if t.len() < 3 || !t.is_char_boundary(2) {
                    return Err(PMIX_ERR_BAD_PARAM);
                }
                let (kind, list) = t.split_at(2);
                if !LEVELS.contains(&kind) {
                    crate::pmix_debug!(1, "relative locality: unknown level {kind:?}");
                    return Err(PMIX_ERR_BAD_PARAM);
                }
                parse_list(list).map(|l| (kind, l)).ok_or(PMIX_ERR_BAD_PARAM)
            })
            .collect()
    }
    let (ta, tb) = (tokens(a)?, tokens(b)?);
    let mut loc = PMIX_LOCALITY_SHARE_NODE;
    for (kind, set) in &ta {
        let Some((_, other)) = tb.iter().find(|(k, _)| k == kind) else { continue };
        if set.is_disjoint(other) {
            continue;
        }
        loc |= match *kind {
            "NM" => PMIX_LOCALITY_SHARE_NUMA,
            "SK" => PMIX_LOCALITY_SHARE_PACKAGE,
            "L3" => PMIX_LOCALITY_SHARE_L3CACHE,
            "L2" => PMIX_LOCALITY_SHARE_L2CACHE,
            "L1" => PMIX_LOCALITY_SHARE_L1CACHE,
            "CR" => PMIX_LOCALITY_SHARE_CORE,
            _ => PMIX_LOCALITY_SHARE_HWTHREAD, // "HT" (names checked when parsed)
        };
    }
    Ok(loc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[u32]) -> CpuSet {
        v.iter().copied().collect()
    }

    #[test]
    fn lists_round_trip() {
        assert_eq!(parse_list("0-3,8"), Some(set(&[0, 1, 2, 3, 8])));
        assert_eq!(parse_list("0x0f"), Some(set(&[0, 1, 2, 3])));
        assert_eq!(format_list(&set(&[0, 1, 2, 3, 8, 10, 11])), "0-3,8,10-11");
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
        assert_eq!(parse_list("0x"), None);
        assert_eq!(parse_list("0-70000"), None);
        assert_eq!(parse_list("65535"), Some(set(&[65535])));
        assert_eq!(format_list(&set(&[u32::MAX - 1, u32::MAX])), format!("{}-{}", u32::MAX - 1, u32::MAX));
    }

    /// A fake sysfs: 2 packages x 2 cores x 2 threads, SMT siblings numbered
    /// apart (cpu c and c+4 share a core), L2 per core, L3 per package.
    fn fake_sysfs() -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("rpmix-topo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let cpu = root.join("devices/system/cpu");
        std::fs::create_dir_all(&cpu).unwrap();
        std::fs::write(cpu.join("online"), "0-7\n").unwrap();
        for c in 0..8u32 {
            let core = c % 4; // global core number
            let pkg = core / 2;
            let d = cpu.join(format!("cpu{c}"));
            std::fs::create_dir_all(d.join("topology")).unwrap();
            std::fs::write(d.join("topology/physical_package_id"), format!("{pkg}\n")).unwrap();
            std::fs::write(d.join("topology/core_id"), format!("{}\n", core % 2)).unwrap();
            let caches = [(1, "Data", format!("{},{}", core, core + 4)), (1, "Instruction", format!("{},{}", core, core + 4)), (2, "Unified", format!("{},{}", core, core + 4)), (3, "Unified", format!("{}-{},{}-{}", pkg * 2, pkg * 2 + 1, pkg * 2 + 4, pkg * 2 + 5))];
            for (k, (level, kind, shared)) in caches.iter().enumerate() {
                let i = d.join(format!("cache/index{k}"));
                std::fs::create_dir_all(&i).unwrap();
                std::fs::write(i.join("level"), format!("{level}\n")).unwrap();
                std::fs::write(i.join("type"), format!("{kind}\n")).unwrap();
                std::fs::write(i.join("shared_cpu_list"), format!("{shared}\n")).unwrap();
            }
        }
        for n in 0..2u32 {
            let d = root.join(format!("devices/system/node/node{n}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("cpulist"), format!("{}-{},{}-{}\n", n * 2, n * 2 + 1, n * 2 + 4, n * 2 + 5)).unwrap();
        }
        root
    }

    #[test]
    fn locality_on_a_two_package_smt_machine() {
        let root = fake_sysfs();
        // cpu 4 is core 0's second thread: logical PU 1 (tree order), core 0.
        assert_eq!(locality_string_of(&machine(&root).unwrap(), &set(&[4])).unwrap(), "SK0:L30:L20:L10:CR0:HT1:NM0");
        assert_eq!(locality_string_of(&machine(&root).unwrap(), &set(&[1])).unwrap(), "SK0:L30:L21:L11:CR1:HT2:NM0");
        assert_eq!(locality_string_of(&machine(&root).unwrap(), &set(&[2, 3])).unwrap(), "SK1:L31:L22-3:L12-3:CR2-3:HT4,6:NM1");
        let a = locality_string_of(&machine(&root).unwrap(), &set(&[0])).unwrap();
        let b = locality_string_of(&machine(&root).unwrap(), &set(&[4])).unwrap();
        let c = locality_string_of(&machine(&root).unwrap(), &set(&[2])).unwrap();
        let same_core = relative_locality(&a, &b).unwrap();
        assert_eq!(same_core, PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA | PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE | PMIX_LOCALITY_SHARE_L2CACHE | PMIX_LOCALITY_SHARE_L1CACHE | PMIX_LOCALITY_SHARE_CORE);
        assert_eq!(relative_locality(&a, &c).unwrap(), PMIX_LOCALITY_SHARE_NODE);
        assert_eq!(relative_locality(&format!("hwloc:{a}"), &b).unwrap(), same_core);
        assert!(relative_locality("SK0:XX1", "XX2").is_err());
        assert!(relative_locality("SK0:XX1", &a).is_err());
        assert!(relative_locality("SK", &a).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}

//! pmixrun's command line: the app contexts and the global options
//! (`--help` in main.rs says what each means).

use pmix::abi::*;

use crate::host::AppSpec;

pub struct Options {
    pub apps: Vec<AppSpec>,
    pub io: crate::io::IoOptions,
    pub on_stall: crate::host::OnStall,
    /// Tell Open MPI 4.1 it was direct-launched (see --help).
    pub ompi_hint: bool,
    pub timeout: Option<u64>,
    pub grace: u64,
    /// Seconds preemptible ranks get between PMIX_JCTRL_PREEMPT_ALERT and
    /// the stop, when pmixrun is told to end by SIGTERM (0: no notice).
    pub preempt_notice: u64,
    /// --bind-to: each rank pinned to one object of this level ("CR": a
    /// core, "HT": a hardware thread), round robin; None: not bound.
    pub bind_to: Option<&'static str>,
    pub verbose: bool,
    /// Output kept per rank and stream for tools that pull it later:
    /// bytes, and whether the newest (true) or the oldest is dropped beyond.
    pub iof_cache: Option<(u32, bool)>,
    /// --persistent: no job of its own; jobs come from tools (PMIx_Spawn).
    pub persistent: bool,
}

/// Why `name` cannot name a process set (None: it can): the names of the
/// sets travel comma-separated (PMIX_QUERY_PSET_NAMES).
pub fn bad_pset_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("an empty name")
    } else if name.contains(',') {
        Some("a name with ','")
    } else if name.len() >= PMIX_MAX_KEYLEN {
        Some("a name too long")
    } else {
        None
    }
}

/// Parse the command line; Ok(None) for --help.
pub fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut opts = Options { apps: Vec::new(), io: Default::default(), on_stall: crate::host::OnStall::Terminate, ompi_hint: true, timeout: None, grace: 2, preempt_notice: 10, bind_to: None, verbose: false, iof_cache: None, persistent: false };
    let mut i = 0;
    while i < args.len() {
        let mut app = AppSpec { cmd: String::new(), argv: Vec::new(), env: Vec::new(), cwd: None, maxprocs: 1, pset: None };
        // options of this app context (and global ones)
        while i < args.len() && args[i].starts_with('-') {
            let a = args[i].as_str();
            let val = |i: &mut usize| -> Result<String, String> {
                *i += 1;
                args.get(*i).cloned().ok_or_else(|| format!("{a} needs a value"))
            };
            match a {
                "-h" | "--help" => return Ok(None),
                "-v" | "--verbose" => opts.verbose = true,
                "--persistent" => opts.persistent = true,
                "--no-ompi-hint" => opts.ompi_hint = false,
                "--tag-output" => opts.io.tag = true,
                "--timestamp-output" => opts.io.timestamp = true,
                "--output" => {
                    opts.io.raw = match val(&mut i)?.as_str() {
                        "raw" => true,
                        "lines" => false,
                        other => return Err(format!("--output: '{other}' is not raw or lines")),
                    }
                }
                "--output-dir" => opts.io.dir = Some(std::path::PathBuf::from(val(&mut i)?)),
                "--stdin" => {
                    let v = val(&mut i)?;
                    opts.io.stdin = match v.as_str() {
                        "none" => crate::io::StdinTarget::None,
                        "all" => crate::io::StdinTarget::All,
                        r => crate::io::StdinTarget::Rank(r.parse().map_err(|_| format!("--stdin: '{r}' is not all, none or a rank"))?),
                    }
                }
                "--iof-cache" => {
                    // BYTES[,oldest|newest]: which end goes when it is full
                    let v = val(&mut i)?;
                    let (n, policy) = v.split_once(',').unwrap_or((v.as_str(), "oldest"));
                    let n: u32 = n.parse().map_err(|_| format!("--iof-cache: '{n}' is not a number of bytes"))?;
                    let newest = match policy {
                        "oldest" => false,
                        "newest" => true,
                        other => return Err(format!("--iof-cache: '{other}' is not oldest or newest")),
                    };
                    opts.iof_cache = Some((n, newest));
                }
                "--on-stall" => {
                    opts.on_stall = match val(&mut i)?.as_str() {
                        "terminate" => crate::host::OnStall::Terminate,
                        "kill" => crate::host::OnStall::Kill,
                        "report" => crate::host::OnStall::Report,
                        other => return Err(format!("--on-stall: '{other}' is not terminate, kill or report")),
                    }
                }
                "-n" | "-np" | "--np" => {
                    let v = val(&mut i)?;
                    app.maxprocs = v.parse().ok().filter(|n| *n > 0).ok_or_else(|| format!("bad process count '{v}'"))?;
                }
                "-x" | "--env" => {
                    let v = val(&mut i)?;
                    let entry = if v.contains('=') {
                        v
                    } else {
                        match std::env::var(&v) {
                            Ok(cur) => format!("{v}={cur}"),
                            Err(_) => return Err(format!("-x {v}: not set in this environment")),
                        }
                    };
                    app.env.push(entry);
                }
                "--wdir" => app.cwd = Some(val(&mut i)?),
                "--pset" => {
                    let v = val(&mut i)?;
                    if let Some(e) = bad_pset_name(&v) {
                        return Err(format!("--pset '{v}': {e}"));
                    }
                    app.pset = Some(v);
                }
                "--timeout" => {
                    let v = val(&mut i)?;
                    opts.timeout = Some(v.parse().map_err(|_| format!("bad timeout '{v}'"))?);
                }
                "--grace" => {
                    let v = val(&mut i)?;
                    opts.grace = v.parse().map_err(|_| format!("bad grace period '{v}'"))?;
                }
                "--bind-to" => {
                    opts.bind_to = match val(&mut i)?.as_str() {
                        "core" => Some("CR"),
                        "hwthread" => Some("HT"),
                        "none" => None,
                        other => return Err(format!("--bind-to {other}: core, hwthread or none")),
                    };
                }
                "--preempt-notice" => {
                    let v = val(&mut i)?;
                    opts.preempt_notice = v.parse().map_err(|_| format!("bad preemption notice '{v}'"))?;
                }
                "--" => {
                    i += 1;
                    break;
                }
                _ => return Err(format!("unknown option '{a}'")),
            }
            i += 1;
        }
        let Some(cmd) = args.get(i) else {
            if opts.persistent && opts.apps.is_empty() {
                break;
            }
            return Err("no program to run".into());
        };
        app.cmd = cmd.clone();
        app.argv.push(cmd.clone());
        i += 1;
        while i < args.len() && args[i] != ":" {
            app.argv.push(args[i].clone());
            i += 1;
        }
        opts.apps.push(app);
        if i < args.len() {
            i += 1; // ':'
            if i >= args.len() {
                return Err("':' must be followed by another app context".into());
            }
        }
    }
    if opts.apps.is_empty() && !opts.persistent {
        return Err("no program to run".into());
    }
    if opts.persistent && !opts.apps.is_empty() {
        return Err("--persistent runs no program of its own (tools start jobs: pmixctl run)".into());
    }
    if opts.persistent {
        // (a daemon's jobs have no terminal: their output is the tools')
        opts.io.quiet = true;
        opts.io.stdin = crate::io::StdinTarget::None;
    }
    Ok(Some(opts))
}

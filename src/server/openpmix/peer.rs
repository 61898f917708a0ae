//! Who is at the other end of a loopback TCP connection: the owner and
//! inode of the peer's socket, from the kernel (sock_diag's lookup of that
//! one socket, else the socket table in /proc/net/tcp), and the process
//! holding that socket (the pid registered for the rank first, then its
//! children, then every process of the user), through whose /proc
//! directory its environment is read. (The listener takes IPv4 loopback
//! alone, tcp4 in its contact; IPv6 ends are asked about the same way.)

use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::{AsFd, OwnedFd};

use nix::fcntl::{openat, readlinkat, OFlag};
use nix::sys::stat::Mode;

/// The kernel's word on one end of a TCP connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketOwner {
    pub uid: u32,
    pub inode: u64,
}

/// The owner and inode of the socket whose local end is `peer` and remote
/// end `ours` (the peer's end of a connection to us): one sock_diag
/// question; /proc/net/tcp when that cannot be asked. None: the kernel
/// knows no such live socket.
pub fn socket_owner(peer: SocketAddr, ours: SocketAddr) -> Option<SocketOwner> {
    match diag::lookup(peer, ours) {
        Ok(o) => Some(o),
        Err(why) => {
            crate::pmix_debug!(5, "OpenPMIx connection from {peer}: sock_diag: {why}; reading the kernel's socket table instead");
            table::lookup(peer, ours)
        }
    }
}

/// The kernel's lookup of one socket by its four addresses (NETLINK_SOCK_DIAG,
/// inet_diag): O(1), where the socket table is read whole.
mod diag {
    use super::*;
    use nix::sys::socket::{recvfrom, sendto, setsockopt, socket, sockopt, AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType};
    use std::mem::size_of;
    use std::os::fd::AsRawFd;
    use std::sync::atomic::{AtomicU32, Ordering};

    /// The sock_diag request and reply type (linux/sock_diag.h).
    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    /// The socket's cookie is not asked to match (linux/inet_diag.h).
    const INET_DIAG_NOCOOKIE: u32 = !0;
    /// Every TCP state (a bit per state).
    const ALL_STATES: u32 = !0;
    /// The largest reply read: a header, the socket and a few attributes fit
    /// many times over; one that fills it is taken as cut short.
    const REPLY_BUF: usize = 8192;

    /// struct inet_diag_sockid: ports and addresses in network order.
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct SockId {
        sport: u16,
        dport: u16,
        src: [u32; 4],
        dst: [u32; 4],
        ifindex: u32,
        cookie: [u32; 2],
    }

    /// struct inet_diag_req_v2.
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct ReqV2 {
        family: u8,
        protocol: u8,
        ext: u8,
        pad: u8,
        states: u32,
        id: SockId,
    }

    /// struct inet_diag_msg.
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct DiagMsg {
        family: u8,
        state: u8,
        timer: u8,
        retrans: u8,
        id: SockId,
        expires: u32,
        rqueue: u32,
        wqueue: u32,
        uid: u32,
        inode: u32,
    }

    /// The whole request datagram.
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Request {
        hdr: libc::nlmsghdr,
        req: ReqV2,
    }

    // The kernel's sizes (no padding anywhere: every field is read or
    // written as plain bytes).
    const HDR: usize = size_of::<libc::nlmsghdr>();
    const _: () = assert!(HDR == 16);
    const _: () = assert!(size_of::<SockId>() == 48);
    const _: () = assert!(size_of::<ReqV2>() == 56);
    const _: () = assert!(size_of::<DiagMsg>() == 72);
    const _: () = assert!(size_of::<Request>() == HDR + 56);

    static SEQ: AtomicU32 = AtomicU32::new(1);

    /// An address as the kernel's four words (network order; IPv4 in the first).
    fn words(ip: IpAddr) -> [u32; 4] {
        let mut w = [0u32; 4];
        match ip {
            IpAddr::V4(a) => w[0] = u32::from_ne_bytes(a.octets()),
            IpAddr::V6(a) => {
                for (i, c) in a.octets().chunks_exact(4).enumerate() {
                    w[i] = u32::from_ne_bytes(c.try_into().unwrap());
                }
            }
        }
        w
    }

    /// The address in a reply's four words, as family `family` has it.
    fn address(family: u8, w: [u32; 4]) -> Option<IpAddr> {
        let mut b = [0u8; 16];
        for (i, x) in w.iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&x.to_ne_bytes());
        }
        match i32::from(family) {
            libc::AF_INET => Some(IpAddr::from([b[0], b[1], b[2], b[3]])),
            libc::AF_INET6 => Some(IpAddr::from(b)),
            _ => None,
        }
    }

    /// Ask the kernel for the socket whose local end is `local` and remote
    /// end `remote`. Err says why it could not be asked or did not answer.
    pub(super) fn lookup(local: SocketAddr, remote: SocketAddr) -> Result<SocketOwner, String> {
        let family = match (local, remote) {
            (SocketAddr::V4(_), SocketAddr::V4(_)) => libc::AF_INET,
            (SocketAddr::V6(_), SocketAddr::V6(_)) => libc::AF_INET6,
            _ => return Err("addresses of two families".into()),
        };
        let fd: OwnedFd = socket(AddressFamily::Netlink, SockType::Datagram, SockFlag::SOCK_CLOEXEC, SockProtocol::NetlinkSockDiag).map_err(|e| format!("socket: {e}"))?;
        // (the kernel answers while it takes the request; this bounds a
        // kernel that does not)
        setsockopt(&fd, sockopt::ReceiveTimeout, &nix::sys::time::TimeVal::new(1, 0)).map_err(|e| format!("SO_RCVTIMEO: {e}"))?;
        let seq = SEQ.fetch_add(1, Ordering::Relaxed);
        let request = Request {
            hdr: libc::nlmsghdr {
                nlmsg_len: size_of::<Request>() as u32,
                nlmsg_type: SOCK_DIAG_BY_FAMILY,
                nlmsg_flags: libc::NLM_F_REQUEST as u16,
                nlmsg_seq: seq,
                nlmsg_pid: 0,
            },
            req: ReqV2 {
                family: family as u8,
                protocol: libc::IPPROTO_TCP as u8,
                ext: 0,
                pad: 0,
                states: ALL_STATES,
                id: SockId {
                    sport: local.port().to_be(),
                    dport: remote.port().to_be(),
                    src: words(local.ip()),
                    dst: words(remote.ip()),
                    ifindex: 0,
                    cookie: [INET_DIAG_NOCOOKIE; 2],
                },
            },
        };
        // SAFETY: `request` is a #[repr(C)] value of plain integers with no
        // padding (the sizes are asserted above), alive for the borrow; its
        // bytes are read, never written.
        let bytes = unsafe { std::slice::from_raw_parts((&request as *const Request).cast::<u8>(), size_of::<Request>()) };
        let sent = sendto(fd.as_raw_fd(), bytes, &NetlinkAddr::new(0, 0), MsgFlags::empty()).map_err(|e| format!("send: {e}"))?;
        if sent != bytes.len() {
            return Err(format!("sent {sent} of {} bytes", bytes.len()));
        }
        let mut buf = [0u8; REPLY_BUF];
        for _ in 0..4 {
            let (n, from) = recvfrom::<NetlinkAddr>(fd.as_raw_fd(), &mut buf).map_err(|e| format!("receive: {e}"))?;
            // Only the kernel's answer counts.
            if from.map(|a| a.pid()) != Some(0) {
                continue;
            }
            return parse(&buf[..n.min(REPLY_BUF)], REPLY_BUF, seq, local, remote);
        }
        Err("no answer from the kernel".into())
    }

    /// Read the kernel's reply `r` (`cap`: the buffer it was read into) to
    /// request `seq`: the socket's owner and inode, checked to be the socket
    /// asked for.
    fn parse(r: &[u8], cap: usize, seq: u32, local: SocketAddr, remote: SocketAddr) -> Result<SocketOwner, String> {
        if r.len() >= cap {
            return Err("a reply larger than expected".into());
        }
        if r.len() < HDR {
            return Err(format!("a reply of {} bytes", r.len()));
        }
        // SAFETY: at least HDR bytes are there (checked above); nlmsghdr is
        // plain integers, valid for any bytes; read_unaligned needs no alignment.
        let hdr: libc::nlmsghdr = unsafe { std::ptr::read_unaligned(r.as_ptr().cast()) };
        let len = hdr.nlmsg_len as usize;
        if len < HDR || len > r.len() {
            return Err(format!("a message of {len} bytes in a reply of {}", r.len()));
        }
        if hdr.nlmsg_seq != seq {
            return Err(format!("an answer to request {} (asked {seq})", hdr.nlmsg_seq));
        }
        let body = &r[HDR..len];
        if i32::from(hdr.nlmsg_type) == libc::NLMSG_ERROR {
            let Some(e) = body.get(..4) else { return Err("a short error message".into()) };
            let errno = -i32::from_ne_bytes(e.try_into().unwrap());
            return Err(format!("the kernel answers: {}", nix::errno::Errno::from_raw(errno)));
        }
        if hdr.nlmsg_type != SOCK_DIAG_BY_FAMILY {
            return Err(format!("a reply of type {}", hdr.nlmsg_type));
        }
        if body.len() < size_of::<DiagMsg>() {
            return Err(format!("a socket of {} bytes", body.len()));
        }
        // SAFETY: body holds a whole DiagMsg (checked above), plain integers
        // valid for any bytes; read_unaligned needs no alignment.
        let m: DiagMsg = unsafe { std::ptr::read_unaligned(body.as_ptr().cast()) };
        // The socket asked for, nothing near it (an IPv6 socket connected
        // to an IPv4 address is found by its IPv4 addresses).
        let same = |w: [u32; 4], port: u16, want: SocketAddr| address(m.family, w).map(|a| a.to_canonical()) == Some(want.ip().to_canonical()) && u16::from_be(port) == want.port();
        if !same(m.id.src, m.id.sport, local) || !same(m.id.dst, m.id.dport, remote) {
            return Err("the kernel answers for another socket".into());
        }
        // (a closed socket waiting out its time has neither owner nor inode)
        if m.inode == 0 {
            return Err("the socket is closed".into());
        }
        Ok(SocketOwner { uid: m.uid, inode: u64::from(m.inode) })
    }

    #[cfg(test)]
    pub(super) fn parse_for_test(r: &[u8], seq: u32, local: SocketAddr, remote: SocketAddr) -> Result<SocketOwner, String> {
        parse(r, REPLY_BUF, seq, local, remote)
    }
}

/// The kernel's socket table (/proc/net/tcp, tcp6): read whole, the
/// fallback when sock_diag cannot be asked.
mod table {
    use super::*;

    /// An address and port as the table prints them (each 32-bit word of
    /// the address as a number in host order).
    fn hex(a: SocketAddr) -> String {
        let words = |o: &[u8]| o.chunks_exact(4).map(|c| format!("{:08X}", u32::from_ne_bytes(c.try_into().unwrap()))).collect::<String>();
        let ip = match a.ip() {
            IpAddr::V4(v) => words(&v.octets()),
            IpAddr::V6(v) => words(&v.octets()),
        };
        format!("{ip}:{:04X}", a.port())
    }

    pub(super) fn lookup(local: SocketAddr, remote: SocketAddr) -> Option<SocketOwner> {
        let path = match (local, remote) {
            (SocketAddr::V4(_), SocketAddr::V4(_)) => "/proc/net/tcp",
            (SocketAddr::V6(_), SocketAddr::V6(_)) => "/proc/net/tcp6",
            _ => return None,
        };
        let (l, r) = (hex(local), hex(remote));
        let table = std::fs::read_to_string(path).ok()?;
        table.lines().skip(1).find_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() <= 9 || f[1] != l || f[2] != r {
                return None;
            }
            let owner = SocketOwner { uid: f[7].parse().ok()?, inode: f[9].parse().ok()? };
            (owner.inode != 0).then_some(owner)
        })
    }
}

/// A process, through its /proc directory held open: what is read through
/// it is that process's, even if its pid is reused meanwhile (then reads fail).
pub struct Process {
    pub pid: i32,
    dir: OwnedFd,
}

impl Process {
    fn open(pid: i32) -> Option<Process> {
        let dir = std::fs::File::open(format!("/proc/{pid}")).ok()?;
        Some(Process { pid, dir: dir.into() })
    }

    /// Its owner (the effective uid; root's when it is not dumpable).
    fn uid(&self) -> Option<u32> {
        nix::sys::stat::fstat(&self.dir).ok().map(|st| st.st_uid)
    }

    /// Whether one of its descriptors is `link` ("socket:[inode]").
    fn holds(&self, link: &str) -> bool {
        let Ok(fd) = openat(&self.dir, "fd", OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC, Mode::empty()) else { return false };
        let Ok(mut dir) = nix::dir::Dir::from_fd(fd) else { return false };
        let Ok(fds) = dir.as_fd().try_clone_to_owned() else { return false };
        // (a directory that fails to read ends the look)
        let found = dir.iter().map_while(Result::ok).any(|e| {
            let name = e.file_name();
            name.to_bytes().first() != Some(&b'.') && readlinkat(&fds, name).is_ok_and(|l| l.as_encoded_bytes() == link.as_bytes())
        });
        found
    }

    /// Its children (of every thread).
    fn children(&self) -> Vec<i32> {
        let mut out = Vec::new();
        let Ok(fd) = openat(&self.dir, "task", OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC, Mode::empty()) else { return out };
        let Ok(mut tasks) = nix::dir::Dir::from_fd(fd) else { return out };
        let Ok(tfd) = tasks.as_fd().try_clone_to_owned() else { return out };
        for t in tasks.iter().map_while(Result::ok) {
            let Ok(tid) = t.file_name().to_str() else { continue };
            if tid.parse::<i32>().is_err() {
                continue;
            }
            let Ok(f) = openat(&tfd, format!("{tid}/children").as_str(), OFlag::O_RDONLY | OFlag::O_CLOEXEC, Mode::empty()) else { continue };
            let mut s = String::new();
            if std::fs::File::from(f).read_to_string(&mut s).is_ok() {
                out.extend(s.split_whitespace().filter_map(|p| p.parse::<i32>().ok()));
            }
        }
        out
    }

    /// A variable of the environment it was started with.
    pub fn environ_var(&self, name: &str) -> Option<String> {
        let f = openat(&self.dir, "environ", OFlag::O_RDONLY | OFlag::O_CLOEXEC, Mode::empty()).ok()?;
        let mut env = Vec::new();
        std::fs::File::from(f).read_to_end(&mut env).ok()?;
        env.split(|b| *b == 0).find_map(|kv| kv.strip_prefix(name.as_bytes()).and_then(|r| r.strip_prefix(b"=")).map(|v| String::from_utf8_lossy(v).into_owned()))
    }
}

/// The process of user `uid` holding the socket with inode `inode`: the
/// process `known` (the pid registered for the rank claimed), else one of
/// its children (a wrapper that forked the program), else the first of
/// all that user's processes that holds it.
pub fn holder(inode: u64, uid: u32, known: Option<i32>) -> Option<Process> {
    let link = format!("socket:[{inode}]");
    let check = |p: Process| (p.uid() == Some(uid) && p.holds(&link)).then_some(p);
    if let Some(pid) = known.filter(|p| *p > 0) {
        if let Some(p) = Process::open(pid) {
            let children = p.children();
            if let Some(p) = check(p) {
                return Some(p);
            }
            if let Some(c) = children.into_iter().find_map(|c| Process::open(c).and_then(check)) {
                return Some(c);
            }
        }
        crate::pmix_debug!(5, "socket {inode}: not held by pid {pid} (registered) nor its children; looking through every process of uid {uid}");
    }
    use std::os::unix::fs::MetadataExt;
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
        if Some(pid) == known || e.metadata().map(|m| m.uid()).ok() != Some(uid) {
            continue;
        }
        if let Some(p) = Process::open(pid).and_then(check) {
            return Some(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;

    /// A loopback connection made here: (our end, the listener's end).
    fn connection(ip: &str) -> Option<(TcpStream, TcpStream)> {
        let l = TcpListener::bind((ip, 0)).ok()?;
        let c = TcpStream::connect(l.local_addr().ok()?).ok()?;
        let (a, _) = l.accept().ok()?;
        Some((c, a))
    }

    /// The inode of descriptor `fd` as /proc/self/fd names it.
    fn inode_of(fd: i32) -> u64 {
        let l = std::fs::read_link(format!("/proc/self/fd/{fd}")).unwrap();
        let l = l.to_str().unwrap();
        l.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']')).unwrap().parse().unwrap()
    }

    fn me() -> SocketOwner {
        SocketOwner { uid: nix::unistd::geteuid().as_raw(), inode: 0 }
    }

    #[test]
    fn the_kernel_names_our_end_of_a_loopback_connection() {
        let (c, a) = connection("127.0.0.1").unwrap();
        let (local, remote) = (c.local_addr().unwrap(), c.peer_addr().unwrap());
        let want = SocketOwner { inode: inode_of(c.as_raw_fd()), ..me() };
        // Both ways of asking, each on its own.
        assert_eq!(diag::lookup(local, remote), Ok(want), "sock_diag");
        assert_eq!(table::lookup(local, remote), Some(want), "/proc/net/tcp");
        assert_eq!(socket_owner(local, remote), Some(want));
        // The other end is the other socket.
        let other = SocketOwner { inode: inode_of(a.as_raw_fd()), ..me() };
        assert_eq!(socket_owner(remote, local), Some(other));
        // A port no one uses is not a socket.
        let nowhere: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert!(diag::lookup(local, nowhere).is_err());
        assert_eq!(socket_owner(local, nowhere), None);
    }

    #[test]
    fn the_kernel_names_an_ipv6_end_too() {
        // (not every machine has IPv6 loopback)
        let Some((c, _a)) = connection("::1") else { return };
        let (local, remote) = (c.local_addr().unwrap(), c.peer_addr().unwrap());
        let want = SocketOwner { inode: inode_of(c.as_raw_fd()), ..me() };
        assert_eq!(diag::lookup(local, remote), Ok(want));
        assert_eq!(table::lookup(local, remote), Some(want));
    }

    #[test]
    fn the_holder_is_found_from_the_known_pid_or_without_it() {
        let (c, _a) = connection("127.0.0.1").unwrap();
        let inode = inode_of(c.as_raw_fd());
        let uid = me().uid;
        let pid = std::process::id() as i32;
        assert_eq!(holder(inode, uid, Some(pid)).map(|p| p.pid), Some(pid));
        // A known pid that does not hold it: every process is looked at.
        assert_eq!(holder(inode, uid, Some(1)).map(|p| p.pid), Some(pid));
        assert_eq!(holder(inode, uid, None).map(|p| p.pid), Some(pid));
        // Another user's, or a socket no one holds: no one.
        assert!(holder(inode, uid.wrapping_add(1), Some(pid)).is_none());
        assert!(holder(u64::from(u32::MAX) + 7, uid, Some(pid)).is_none());
        let p = holder(inode, uid, Some(pid)).unwrap();
        assert_eq!(p.environ_var("PATH"), std::env::var("PATH").ok());
        assert_eq!(p.environ_var("RPMIX_NO_SUCH_VARIABLE"), None);
    }

    #[test]
    fn replies_that_are_not_the_socket_asked_for_are_refused() {
        let local: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let remote: SocketAddr = "127.0.0.1:50000".parse().unwrap();
        // A reply as the kernel writes it: a header, then inet_diag_msg.
        let reply = |ty: u16, seq: u32, sport: u16, inode: u32| {
            let mut r = Vec::new();
            r.extend_from_slice(&(16u32 + 72).to_ne_bytes());
            r.extend_from_slice(&ty.to_ne_bytes());
            r.extend_from_slice(&0u16.to_ne_bytes());
            r.extend_from_slice(&seq.to_ne_bytes());
            r.extend_from_slice(&0u32.to_ne_bytes());
            r.extend_from_slice(&[libc::AF_INET as u8, 1, 0, 0]);
            r.extend_from_slice(&sport.to_be_bytes());
            r.extend_from_slice(&50000u16.to_be_bytes());
            r.extend_from_slice(&[127, 0, 0, 1]);
            r.extend_from_slice(&[0; 12]);
            r.extend_from_slice(&[127, 0, 0, 1]);
            r.extend_from_slice(&[0; 12]);
            r.extend_from_slice(&[0; 4 + 8 + 12]);
            r.extend_from_slice(&1234u32.to_ne_bytes());
            r.extend_from_slice(&inode.to_ne_bytes());
            r
        };
        let good = reply(20, 9, 40000, 77);
        assert_eq!(diag::parse_for_test(&good, 9, local, remote), Ok(SocketOwner { uid: 1234, inode: 77 }));
        assert!(diag::parse_for_test(&good, 8, local, remote).is_err(), "another request's answer");
        assert!(diag::parse_for_test(&reply(20, 9, 40001, 77), 9, local, remote).is_err(), "another socket");
        assert!(diag::parse_for_test(&reply(20, 9, 40000, 0), 9, local, remote).is_err(), "a closed socket");
        assert!(diag::parse_for_test(&reply(21, 9, 40000, 77), 9, local, remote).is_err(), "another type");
        for cut in [0, 15, 16, 87] {
            assert!(diag::parse_for_test(&good[..cut], 9, local, remote).is_err(), "cut at {cut}");
        }
        // A length beyond the bytes read.
        let mut long = good.clone();
        long[..4].copy_from_slice(&1000u32.to_ne_bytes());
        assert!(diag::parse_for_test(&long, 9, local, remote).is_err());
        // NLMSG_ERROR (with its errno) is a failure, whatever follows.
        let mut err = good.clone();
        err[4..6].copy_from_slice(&(libc::NLMSG_ERROR as u16).to_ne_bytes());
        err[16..20].copy_from_slice(&(-libc::ENOENT).to_ne_bytes());
        assert!(diag::parse_for_test(&err, 9, local, remote).unwrap_err().contains("ENOENT"));
    }
}

//! What a connection runs over, and how its messages are framed.
//!
//! rpmix's own peers talk over Unix-domain sockets with rpmix's framing
//! (`u32 length, u32 request id, u16 tag`, little-endian). OpenPMIx's peers
//! talk over loopback TCP with OpenPMIx's ("ptl") framing: four big-endian
//! u32s, the peer's index, a tag that pairs a reply with its request, the
//! body's length, and a zero (docs/openpmix-ptl-protocol.md, 3.1). A role
//! sees the same `on_frame(request id, tag, body)` from both: a ptl frame's
//! tag is the request id, and its rpmix tag is 0.

use std::io::Read;
use std::os::fd::{AsRawFd, RawFd};

use mio::event::Source;
use mio::net::{TcpStream, UnixStream};
use mio::{Interest, Registry, Token};

/// A connected stream of either kind.
pub enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => {
                let n = s.read(buf)?;
                quick_ack(s.as_raw_fd());
                Ok(n)
            }
        }
    }
}

impl Stream {
    /// Read at most `max` bytes onto the end of `buf`, into its spare room
    /// (not zeroed first): a large frame lands where it is handed over.
    pub fn read_append(&mut self, buf: &mut Vec<u8>, max: usize) -> std::io::Result<usize> {
        buf.reserve(max);
        let spare = &mut buf.spare_capacity_mut()[..max];
        // SAFETY: this stream's descriptor is open while `self` lives;
        // `spare` is writable for `max` bytes, and read(2) writes at most
        // that many.
        let n = unsafe { libc::read(self.as_raw_fd(), spare.as_mut_ptr().cast(), max) };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the kernel wrote the first `n` bytes of the spare room.
        unsafe { buf.set_len(buf.len() + n as usize) };
        if let Stream::Tcp(s) = self {
            quick_ack(s.as_raw_fd());
        }
        Ok(n as usize)
    }
}

/// Acknowledge what the peer sent at once, not up to 40 ms later: an
/// OpenPMIx server writes with Nagle on, so its answer to a second request
/// in flight waits for our acknowledgement of the first (a commit and a
/// fence back to back took 40 ms). Linux drops the mode again by itself,
/// so it is set after every read.
fn quick_ack(fd: RawFd) {
    let on: libc::c_int = 1;
    // SAFETY: `fd` is this stream's open socket; the option value is a
    // c_int that lives across the call. A failure only costs latency.
    unsafe {
        libc::setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_QUICKACK, &on as *const libc::c_int as *const libc::c_void, std::mem::size_of::<libc::c_int>() as libc::socklen_t);
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tcp(s) => s.as_raw_fd(),
        }
    }
}

impl Source for Stream {
    fn register(&mut self, r: &Registry, t: Token, i: Interest) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.register(r, t, i),
            Stream::Tcp(s) => s.register(r, t, i),
        }
    }
    fn reregister(&mut self, r: &Registry, t: Token, i: Interest) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.reregister(r, t, i),
            Stream::Tcp(s) => s.reregister(r, t, i),
        }
    }
    fn deregister(&mut self, r: &Registry) -> std::io::Result<()> {
        match self {
            Stream::Unix(s) => s.deregister(r),
            Stream::Tcp(s) => s.deregister(r),
        }
    }
}

/// How one connection's messages are delimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// rpmix's: `u32 len (of what follows), u32 request id, u16 tag`, LE.
    Rpmix,
    /// OpenPMIx's: `u32 index, u32 tag, u32 body length, u32 0`, BE; `index`
    /// is what the server assigned this client at connect.
    Ptl { index: u32 },
}

pub const PTL_HEADER: usize = 16;

impl Framing {
    /// Bytes of header before the body.
    pub fn header_len(self) -> usize {
        match self {
            Framing::Rpmix => super::HEADER,
            Framing::Ptl { .. } => PTL_HEADER,
        }
    }

    /// The header of a frame of `body_len` bytes.
    pub fn header(self, req: u32, tag: u16, body_len: usize, out: &mut Vec<u8>) {
        match self {
            Framing::Rpmix => {
                out.extend_from_slice(&((6 + body_len) as u32).to_le_bytes());
                out.extend_from_slice(&req.to_le_bytes());
                out.extend_from_slice(&tag.to_le_bytes());
            }
            Framing::Ptl { index } => {
                out.extend_from_slice(&index.to_be_bytes());
                out.extend_from_slice(&req.to_be_bytes());
                out.extend_from_slice(&(body_len as u32).to_be_bytes());
                out.extend_from_slice(&0u32.to_be_bytes());
            }
        }
    }

    /// The next frame's total length (header included), once its header is
    /// in `buf`: None while the header is incomplete; Err for a length that
    /// cannot be a frame.
    pub fn frame_len(self, buf: &[u8]) -> Result<Option<usize>, usize> {
        match self {
            Framing::Rpmix => {
                if buf.len() < 4 {
                    return Ok(None);
                }
                let len = u32::from_le_bytes(buf[..4].try_into().unwrap()) as usize;
                if len < 6 {
                    return Err(len);
                }
                Ok(Some(4 + len))
            }
            Framing::Ptl { .. } => {
                if buf.len() < PTL_HEADER {
                    return Ok(None);
                }
                Ok(Some(PTL_HEADER + u32::from_be_bytes(buf[8..12].try_into().unwrap()) as usize))
            }
        }
    }

    /// (request id, tag) of a whole frame.
    pub fn ids(self, frame: &[u8]) -> (u32, u16) {
        match self {
            Framing::Rpmix => {
                (u32::from_le_bytes(frame[4..8].try_into().unwrap()), u16::from_le_bytes(frame[8..10].try_into().unwrap()))
            }
            Framing::Ptl { .. } => (u32::from_be_bytes(frame[4..8].try_into().unwrap()), 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{start_with, ConnId, Net, Oneshot, Role};
    use std::io::Write;

    /// Answers every frame with its body reversed, under the same request id.
    struct Echo {
        closed: Option<Oneshot<()>>,
    }
    impl Role for Echo {
        fn on_frame(&mut self, net: &mut Net, id: ConnId, req: u32, tag: u16, body: &[u8]) {
            assert_eq!(tag, 0, "a ptl frame has no rpmix tag");
            let back: Vec<u8> = body.iter().rev().copied().collect();
            net.send(id, req, 0, &back);
        }
        fn on_close(&mut self, _net: &mut Net, _id: ConnId) {
            if let Some(c) = self.closed.take() {
                c.set(());
            }
        }
    }

    /// A TCP connection with OpenPMIx's framing: frames split across writes
    /// and several in one write arrive whole, and answers carry the index
    /// and tag in big-endian order, as an OpenPMIx server reads them.
    #[test]
    fn ptl_frames_over_tcp() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut peer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (ours, _) = listener.accept().unwrap();
        ours.set_nonblocking(true).unwrap();
        let closed = Oneshot::new();
        let role = Echo { closed: Some(closed.clone()) };
        let conns = vec![(Stream::Tcp(TcpStream::from_std(ours)), Framing::Ptl { index: 7 })];
        let engine = start_with(role, None, conns, "ptl-test").unwrap();

        let frame = |tag: u32, body: &[u8]| {
            let mut f = Vec::new();
            Framing::Ptl { index: 0 }.header(tag, 0, body.len(), &mut f);
            f.extend_from_slice(body);
            f
        };
        let (a, b) = (frame(101, b"abc"), frame(102, b""));
        peer.write_all(&a[..5]).unwrap(); // a header cut in two
        std::thread::sleep(std::time::Duration::from_millis(20));
        let mut rest = a[5..].to_vec();
        rest.extend_from_slice(&b); // and two frames in one write
        peer.write_all(&rest).unwrap();

        let mut got = vec![0u8; 16 + 3 + 16];
        peer.read_exact(&mut got).unwrap();
        assert_eq!(&got[..16], &[0, 0, 0, 7, 0, 0, 0, 101, 0, 0, 0, 3, 0, 0, 0, 0]);
        assert_eq!(&got[16..19], b"cba");
        assert_eq!(&got[19..], &[0, 0, 0, 7, 0, 0, 0, 102, 0, 0, 0, 0, 0, 0, 0, 0]);
        drop(peer);
        assert_eq!(closed.wait_timeout(std::time::Duration::from_secs(5)), Some(()), "the close was not seen");
        engine.handle.run(|_, net| net.stop());
    }
}

//! The connection: TCP (a name resolved by ember's own resolver, `fetch/dns`) or a local unix
//! socket (`Dial::Unix`, a platform API such as LXD's /dev/lxd/sock), TLS over rustls with the
//! ring provider, and the one deadline that bounds resolving, connect, TLS, request and every
//! read. Kept
//! apart so the only code touching sockets and certificates is here, and a slow-drip server
//! meets the deadline in one place (`Timed`).

use super::url::{Host, Url};
use super::{failed, Error};
use crate::fetch::dns::Resolver;
use rustls::pki_types::{CertificateDer, ServerName};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The time left before `deadline`, or a timeout.
fn left(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    Ok(left)
}

/// Where a request's connection goes: TCP to the URL's host, or, for every URL, one local
/// unix socket whose server answers HTTP (the URL's host is then only the Host header). Only a
/// fetcher made for a platform's socket dials one, so no URL from user-data reaches a socket.
pub(in crate::fetch) enum Dial {
    Tcp(Resolver),
    Unix(PathBuf),
}

enum Socket {
    Tcp(TcpStream),
    Unix(UnixStream),
}

/// A socket whose every read and write is bounded by what is left before the deadline, so a
/// server that drips bytes cannot hold a request past it.
struct Timed {
    socket: Socket,
    deadline: Instant,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = Some(left(self.deadline)?);
        match &mut self.socket {
            Socket::Tcp(s) => s.set_read_timeout(left).and_then(|()| s.read(buf)),
            Socket::Unix(s) => s.set_read_timeout(left).and_then(|()| s.read(buf)),
        }
    }
}

impl Write for Timed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = Some(left(self.deadline)?);
        match &mut self.socket {
            Socket::Tcp(s) => s.set_write_timeout(left).and_then(|()| s.write(buf)),
            Socket::Unix(s) => s.set_write_timeout(left).and_then(|()| s.write(buf)),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.socket {
            Socket::Tcp(s) => s.flush(),
            Socket::Unix(s) => s.flush(),
        }
    }
}

pub(super) trait Stream: Read + Write {}
impl<T: Read + Write> Stream for T {}

pub(super) fn connect(
    url: &Url,
    deadline: Instant,
    tls: &dyn Fn() -> Result<Arc<rustls::ClientConfig>, String>,
    dial: &Dial,
    source_port: Option<u16>,
) -> Result<Box<dyn Stream>, Error> {
    let dns = match dial {
        Dial::Tcp(dns) => dns,
        Dial::Unix(path) => {
            if url.tls {
                return Err(failed("https over a unix socket is not supported"));
            }
            // A local connect answers at once: refused, missing, or accepted.
            let socket = Socket::Unix(UnixStream::connect(path)?);
            return Ok(Box::new(Timed { socket, deadline }));
        }
    };
    let addrs = match &url.host {
        Host::Ip(ip) => vec![*ip],
        Host::Name(name) => dns.resolve(name, deadline).map_err(|f| match f.retry {
            true => Error::Transient(f.reason),
            false => failed(f.reason),
        })?,
    };
    let mut last = Error::Transient("the host has no address".into());
    let mut tcp = None;
    for (i, ip) in addrs.iter().enumerate() {
        // An equal share of what is left for each address still to try, so a silent first
        // one leaves time for the next.
        let share = left(deadline)? / (addrs.len() - i) as u32;
        let to = SocketAddr::new(*ip, url.port);
        let made = match source_port {
            None => TcpStream::connect_timeout(&to, share),
            Some(port) => connect_from(port, to, share),
        };
        match made {
            Ok(s) => {
                tcp = Some(s);
                break;
            }
            Err(e) => last = Error::from(e),
        }
    }
    let tcp = Timed {
        socket: Socket::Tcp(tcp.ok_or(last)?),
        deadline,
    };
    if !url.tls {
        return Ok(Box::new(tcp));
    }
    let name = match &url.host {
        Host::Ip(ip) => ServerName::from(*ip),
        Host::Name(n) => {
            ServerName::try_from(n.clone()).map_err(|e| failed(format!("tls: {e}")))?
        }
    };
    let conn = rustls::ClientConnection::new(tls().map_err(failed)?, name)
        .map_err(|e| failed(format!("tls: {e}")))?;
    Ok(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

/// A connection from local port `port` (Scaleway's user-data answers only a privileged
/// source port, which only root can bind): bound before connecting, which std cannot do.
/// A blocking connect on Linux gives up after the socket's send timeout. The port in use by
/// another socket is an error the caller may answer with another port.
fn connect_from(port: u16, to: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    use rustix::net::{sockopt, AddressFamily, SocketType};
    let (family, any) = match to {
        SocketAddr::V4(_) => (AddressFamily::INET, IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        SocketAddr::V6(_) => (AddressFamily::INET6, IpAddr::V6(Ipv6Addr::UNSPECIFIED)),
    };
    let fd = rustix::net::socket(family, SocketType::STREAM, None)?;
    // A port left in TIME_WAIT by the previous request to the same service may be bound again.
    sockopt::set_socket_reuseaddr(&fd, true)?;
    rustix::net::bind(&fd, &SocketAddr::new(any, port))?;
    sockopt::set_socket_timeout(
        &fd,
        sockopt::Timeout::Send,
        Some(timeout.max(Duration::from_millis(1))),
    )?;
    rustix::net::connect(&fd, &to).map_err(|e| match e {
        rustix::io::Errno::INPROGRESS | rustix::io::Errno::AGAIN => {
            io::Error::new(io::ErrorKind::TimedOut, "connect timed out")
        }
        e => e.into(),
    })?;
    sockopt::set_socket_timeout(&fd, sockopt::Timeout::Send, None)?;
    Ok(TcpStream::from(fd))
}

/// A client configuration trusting `roots`, with the ring provider (no process default).
pub(in crate::fetch) fn tls_config(
    roots: Vec<CertificateDer<'static>>,
) -> Result<Arc<rustls::ClientConfig>, String> {
    let mut store = rustls::RootCertStore::empty();
    store.add_parsable_certificates(roots);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("tls: {e}"))?
        .with_root_certificates(store)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

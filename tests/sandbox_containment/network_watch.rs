//! Probes of the network watch (`sandbox::watch_*`): every bubblewrap command runs under a
//! seccomp listener that Ghostlab answers, so a direct attempt to leave the sandbox is refused
//! and recorded in every network mode. These try to dodge it or to go unrecorded.

use ghostlab::sandbox::{ExecOptions, ExecOutput, Role};

use super::Ctx;
use super::{Row, held, sh, summary};

/// Runs `script` in a fresh session; returns its output and the hosts of the session's denials.
async fn with_denials(ctx: &Ctx, script: &str) -> (ExecOutput, Vec<String>) {
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = s.exec(&sh(script), &ExecOptions::default(), None).await.unwrap();
    let hosts = s
        .denials()
        .into_iter()
        .map(|d| format!("{}:{}", d.host, d.port))
        .collect();
    s.delete().await.unwrap();
    (o, hosts)
}

fn perl_errno(call: &str) -> String {
    format!(r#"perl -e 'my $r = {call}; print "rc=$r errno=", ($r < 0 ? $!+0 : 0), "\n";'"#)
}

/// x86_64's x32 ABI numbers every syscall again (`nr | 0x40000000`); the watch's filter names
/// `connect` by its x86_64 number only, so every x32 call must fail.
pub async fn x32_alias(ctx: &Ctx, name: &'static str) -> Row {
    if !cfg!(target_arch = "x86_64") {
        return held(name, "denied", "no x32 ABI on this architecture".into(), true);
    }
    let connect_x32 = 0x4000_0000 | libc::SYS_connect;
    let o = super::one_shot(ctx, &perl_errno(&format!("syscall({connect_x32}, 0, 0, 0)"))).await;
    held(
        name,
        "denied",
        summary(&o),
        o.stdout_text().contains(&format!("errno={}", libc::EPERM)),
    )
}

/// The agent installs its own notification listener to take the calls over: only one
/// listener may exist in a process's filter stack.
pub async fn second_listener(ctx: &Ctx, name: &'static str) -> Row {
    let allow_all = r#"pack("S x6 P8", 1, pack("SCCL", 6, 0, 0, 0x7fff0000))"#;
    let call = format!("syscall({}, 1, 8, {allow_all})", libc::SYS_seccomp);
    let o = super::one_shot(ctx, &perl_errno(&call)).await;
    held(
        name,
        "denied",
        summary(&o),
        o.stdout_text().contains(&format!("errno={}", libc::EBUSY)),
    )
}

/// A daemonised grandchild (new session, parent gone) connects out: the filter is inherited.
pub async fn daemonised_child(ctx: &Ctx, name: &'static str) -> Row {
    let connect = r#"perl -e 'use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0); connect($s, pack_sockaddr_in(80, inet_aton("203.0.113.8")))'"#;
    let script = format!("setsid sh -c '({} &)'; sleep 1", connect.replace('\'', r"'\''"));
    let (o, hosts) = with_denials(ctx, &script).await;
    held(
        name,
        "recorded",
        format!("{}; denials {hosts:?}", summary(&o)),
        hosts.iter().any(|h| h == "203.0.113.8:80"),
    )
}

/// A UDP datagram with its own destination (no connect) and an IPv6 connect.
pub async fn datagram_and_v6(ctx: &Ctx, name: &'static str) -> Row {
    let script = r#"python3 -c '
import socket
try: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("203.0.113.6", 9))
except OSError as e: print("udp", e.errno)
try: socket.create_connection(("2001:db8::9", 80), 2)
except OSError as e: print("v6", e.errno)
'"#;
    let (o, hosts) = with_denials(ctx, script).await;
    let out = o.stdout_text();
    held(
        name,
        "refused+recorded",
        format!("{}; denials {hosts:?}", summary(&o)),
        out.contains(&format!("udp {}", libc::ENETUNREACH))
            && out.contains(&format!("v6 {}", libc::ENETUNREACH))
            && hosts.iter().any(|h| h == "203.0.113.6:9")
            && hosts.iter().any(|h| h == "2001:db8::9:80"),
    )
}

/// The shim without a socket to hand its listener over must not run the command.
pub async fn shim_fails_closed(ctx: &Ctx, name: &'static str) -> Row {
    let script = format!(
        "{} __network-watch --socket-fd 99 -- sh -c 'echo RAN'; echo exit=$?",
        ctx.bridge.display()
    );
    let o = super::one_shot(ctx, &script).await;
    let out = o.stdout_text();
    held(
        name,
        "not run",
        summary(&o),
        !out.contains("RAN") && out.contains("exit=126"),
    )
}

/// Internet sockets exist for the watch to see where they go, but only as TCP or UDP: SCTP
/// (by protocol or as a seqpacket socket) and raw sockets reach kernel code nothing needs.
pub async fn exotic_inet_sockets(ctx: &Ctx, name: &'static str) -> Row {
    let s = libc::SYS_socket;
    let script = [
        (libc::IPPROTO_SCTP, libc::SOCK_STREAM),
        (0, libc::SOCK_SEQPACKET),
        (0, libc::SOCK_RAW),
    ]
    .iter()
    .map(|(proto, kind)| perl_errno(&format!("syscall({s}, {}, {kind}, {proto})", libc::AF_INET)))
    .collect::<Vec<_>>()
    .join("; ");
    let o = super::one_shot(
        ctx,
        &format!("{script}; {}", perl_errno(&format!("syscall({s}, 2, 1, 0)"))),
    )
    .await;
    let out = o.stdout_text();
    let lines: Vec<&str> = out.lines().collect();
    let denied = lines.len() == 4 && lines[..3].iter().all(|l| l.contains(&format!("errno={}", libc::EPERM)));
    held(
        name,
        "denied (TCP allowed)",
        summary(&o),
        denied && lines[3].contains("errno=0"),
    )
}

/// Datagrams whose destination sits behind a message header: `sendmsg` to one address and a
/// `sendmmsg` batch to the loopback and to one address. A filter cannot follow the pointer;
/// the watch reads it.
pub async fn datagrams_by_message_header(ctx: &Ctx, name: &'static str) -> Row {
    let script = r#"python3 -c '
import ctypes, socket
try: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendmsg([b"x"], [], 0, ("203.0.113.21", 9))
except OSError as e: print("sendmsg", e.errno)
libc = ctypes.CDLL(None, use_errno=True)
class Iov(ctypes.Structure): _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class Msg(ctypes.Structure): _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.c_void_p), ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t), ("flags", ctypes.c_int)]
class MMsg(ctypes.Structure): _fields_ = [("hdr", Msg), ("len", ctypes.c_uint)]
def sin(ip, port): return ctypes.create_string_buffer(socket.AF_INET.to_bytes(2, "little") + port.to_bytes(2, "big") + socket.inet_aton(ip) + bytes(8), 16)
data = ctypes.create_string_buffer(b"x", 1)
iov = Iov(ctypes.cast(data, ctypes.c_void_p), 1)
names = [sin("127.0.0.1", 9), sin("203.0.113.22", 9)]
batch = (MMsg * 2)()
for i, n in enumerate(names): batch[i].hdr = Msg(ctypes.cast(n, ctypes.c_void_p), 16, ctypes.addressof(iov), 1, None, 0, 0)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r = libc.sendmmsg(s.fileno(), batch, 2, 0)
print("sendmmsg", r, ctypes.get_errno())
'"#;
    let (o, hosts) = with_denials(ctx, script).await;
    let out = o.stdout_text();
    held(
        name,
        "refused+recorded",
        format!("{}; denials {hosts:?}", summary(&o)),
        out.contains(&format!("sendmsg {}", libc::ENETUNREACH))
            && out.contains(&format!("sendmmsg -1 {}", libc::ENETUNREACH))
            && hosts.iter().any(|h| h == "203.0.113.21:9")
            && hosts.iter().any(|h| h == "203.0.113.22:9")
            && !hosts.iter().any(|h| h.starts_with("127.")),
    )
}

/// A process that makes itself non-dumpable turns its /proc files over to root: the watch
/// still reads its connect and its exec (not through /proc/PID/mem), as root and not.
pub async fn non_dumpable_process(ctx: &Ctx, name: &'static str) -> Row {
    let script = r#"python3 -c '
import ctypes, os, socket
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
try: socket.create_connection(("203.0.113.31", 80), 2)
except OSError as e: print("connect", e.errno, flush=True)
os.execvp("git", ["git", "--no-pager", "hidden-by-dumpable"])
'"#;
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = s.exec(&sh(script), &ExecOptions::default(), None).await.unwrap();
    let hosts: Vec<String> = s
        .denials()
        .into_iter()
        .map(|d| format!("{}:{}", d.host, d.port))
        .collect();
    let seen = s.take_commands();
    let git = seen
        .kept
        .iter()
        .any(|c| c.args.iter().any(|a| a == "hidden-by-dumpable"));
    let blind = s.watch_fault();
    s.delete().await.unwrap();
    held(
        name,
        "recorded",
        format!("{}; denials {hosts:?}; git seen {git}; blind {blind:?}", summary(&o)),
        o.stdout_text().contains(&format!("connect {}", libc::ENETUNREACH))
            && hosts.iter().any(|h| h == "203.0.113.31:80")
            && git
            && blind.is_none(),
    )
}

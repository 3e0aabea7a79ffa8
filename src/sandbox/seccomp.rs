//! The seccomp filter handed to bubblewrap (`--seccomp FD`): a deny list of syscalls that
//! reach kernel attack surface or undo the sandbox (ptrace, mounts, bpf, io_uring, keyrings,
//! namespaces), of calls that move descriptors or memory between processes (pidfd_getfd,
//! process_vm_*, process_madvise, kcmp, userfaultfd), and of socket families other than
//! AF_UNIX.
//!
//! It never allows more than the namespaces already allow; it is a second wall, not the first.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::os::fd::{FromRawFd, OwnedFd};

use super::SandboxError;

/// Syscalls that always fail with EPERM inside the sandbox.
pub(crate) const BLOCKED_SYSCALLS: &[(&str, libc::c_long)] = &[
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    // Taking another process's descriptor (and the secret behind it), advising on its memory,
    // and comparing its kernel objects: all reach into a sibling of the same sandbox.
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("process_madvise", libc::SYS_process_madvise),
    ("kcmp", libc::SYS_kcmp),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("fsopen", libc::SYS_fsopen),
    ("fsmount", libc::SYS_fsmount),
    ("fsconfig", libc::SYS_fsconfig),
    ("fspick", libc::SYS_fspick),
    ("move_mount", libc::SYS_move_mount),
    ("open_tree", libc::SYS_open_tree),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("kexec_load", libc::SYS_kexec_load),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("acct", libc::SYS_acct),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("reboot", libc::SYS_reboot),
];

/// Which socket families `socket()`/`socketpair()` may create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SocketRule {
    /// AF_UNIX only. No sandboxed command runs without the loopback bridge; the unit test
    /// compares against it to show the inet rules are really added.
    #[cfg(test)]
    UnixOnly,
    /// AF_UNIX plus AF_INET/AF_INET6: needed by the loopback bridge to the egress proxy. The
    /// network namespace still has only `lo`, so these reach nothing but the bridge.
    UnixAndLoopbackInet,
}

/// Compiles the filter for this machine's architecture.
pub(crate) fn compile(sockets: SocketRule) -> Result<BpfProgram, SandboxError> {
    let err = |e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string());
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for (_, nr) in BLOCKED_SYSCALLS {
        // An empty rule list matches the syscall unconditionally.
        for n in with_x32(*nr) {
            rules.insert(n, Vec::new());
        }
    }
    let mut allowed = vec![libc::AF_UNIX as u64];
    if sockets == SocketRule::UnixAndLoopbackInet {
        allowed.push(libc::AF_INET as u64);
        allowed.push(libc::AF_INET6 as u64);
    }
    // Conditions in one rule are ANDed: the family differs from every allowed one.
    let conditions = allowed
        .iter()
        .map(|fam| SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, *fam))
        .collect::<Result<Vec<_>, _>>()
        .map_err(err)?;
    let mut socket_rules = vec![SeccompRule::new(conditions).map_err(err)?];
    if sockets == SocketRule::UnixAndLoopbackInet {
        // An internet socket only as TCP or UDP (protocol 0 picks one of those for a stream or
        // datagram): SCTP, MPTCP, UDP-Lite, ICMP and raw sockets would load and reach kernel
        // code the sandbox never needs.
        for family in [libc::AF_INET, libc::AF_INET6] {
            let mut c =
                vec![SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family as u64).map_err(err)?];
            for proto in [0, libc::IPPROTO_TCP, libc::IPPROTO_UDP] {
                c.push(SeccompCondition::new(2, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, proto as u64).map_err(err)?);
            }
            socket_rules.push(SeccompRule::new(c).map_err(err)?);
            // Neither a stream nor a datagram socket (raw, seqpacket → SCTP, DCCP, packet).
            for kind in [libc::SOCK_RAW, libc::SOCK_RDM, libc::SOCK_SEQPACKET, 6, 10] {
                let c = vec![
                    SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family as u64).map_err(err)?,
                    SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::MaskedEq(0xf), kind as u64)
                        .map_err(err)?,
                ];
                socket_rules.push(SeccompRule::new(c).map_err(err)?);
            }
        }
    }
    for nr in [libc::SYS_socket, libc::SYS_socketpair] {
        for n in with_x32(nr) {
            rules.insert(n, socket_rules.clone());
        }
    }
    let arch = std::env::consts::ARCH.try_into().map_err(err)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(err)?;
    BpfProgram::try_from(filter).map_err(err)
}

/// The syscall number plus, on x86_64, its x32-ABI aliases: the x32 ABI shares the x86_64
/// audit arch, so without these a kernel built with CONFIG_X86_X32_ABI would let
/// `nr | 0x40000000` through. (i386 syscalls are killed by the filter's arch check.)
fn with_x32(nr: libc::c_long) -> Vec<i64> {
    let mut out = vec![nr];
    if cfg!(target_arch = "x86_64") {
        const X32: i64 = 0x4000_0000;
        out.push(nr | X32);
        // Syscalls whose x32 entry has its own number in the 512+ range.
        match nr {
            libc::SYS_ptrace => out.push(X32 | 521),
            libc::SYS_process_vm_readv => out.push(X32 | 539),
            libc::SYS_process_vm_writev => out.push(X32 | 540),
            _ => {}
        }
    }
    out
}

/// The program as the raw `struct sock_filter` array bwrap reads from its fd.
pub(crate) fn to_bytes(program: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for ins in program {
        out.extend_from_slice(&ins.code.to_ne_bytes());
        out.push(ins.jt);
        out.push(ins.jf);
        out.extend_from_slice(&ins.k.to_ne_bytes());
    }
    out
}

/// A close-on-exec memfd holding `bytes`, positioned at the start; the child clears
/// close-on-exec on it just before exec so bwrap inherits it.
pub(crate) fn memfd_with(bytes: &[u8]) -> Result<OwnedFd, SandboxError> {
    // SAFETY: memfd_create with a valid NUL-terminated name; the fd is owned below.
    let fd = unsafe { libc::memfd_create(c"ghostlab-seccomp".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(SandboxError::Seccomp(format!(
            "memfd_create: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: fd is a fresh descriptor nobody else owns.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(bytes)
        .and_then(|_| file.seek(SeekFrom::Start(0)).map(|_| ()))
        .map_err(|e| SandboxError::Seccomp(format!("writing the filter: {e}")))?;
    Ok(OwnedFd::from(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_for_both_socket_rules() {
        let a = compile(SocketRule::UnixOnly).unwrap();
        let b = compile(SocketRule::UnixAndLoopbackInet).unwrap();
        assert!(a.len() > BLOCKED_SYSCALLS.len());
        assert_ne!(a, b);
        assert_eq!(to_bytes(&a).len(), a.len() * 8);
    }
}

//! The second seccomp filter of a bubblewrap command, installed by the watch shim
//! (`watch_shim`) just before the agent's program starts: it hands every `connect`, every
//! `sendto` with an explicit destination, every `sendmsg`/`sendmmsg` (whose destination sits
//! behind a pointer a filter cannot follow) and every `execve`/`execveat` to Ghostlab's
//! supervisor (`watch_supervisor`) as a user notification. So a direct network attempt, one
//! that ignores the egress proxy, is recorded, also under `network: disabled` where no proxy
//! runs; and every program the agent's processes start is recorded, whatever runner it has.
//!
//! seccompiler has no user-notification action, so this small program is written by hand.
//! Syscalls of a foreign architecture are allowed here: bubblewrap's filter (`seccomp`) kills
//! them. x32 syscalls on x86_64 fail with EPERM, so `connect` cannot be reached by an alias
//! this filter does not name.

use libc::sock_filter;

const LD_ABS_W: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JSET_K: u16 = (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

/// Offsets inside `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
/// Low and high 32-bit words of argument `i` (little-endian layout).
const fn arg_low(i: u32) -> u32 {
    16 + 8 * i
}
const fn arg_high(i: u32) -> u32 {
    16 + 8 * i + 4
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

const RET_ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const RET_NOTIFY: u32 = libc::SECCOMP_RET_USER_NOTIF;
const RET_EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;

fn stmt(code: u16, k: u32) -> sock_filter {
    sock_filter { code, jt: 0, jf: 0, k }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// The program: notify on `connect`, `sendmsg`, `sendmmsg`, `execve`, `execveat`, and on
/// `sendto` whose destination pointer is not null.
pub(crate) fn program() -> Vec<sock_filter> {
    let mut p = vec![
        stmt(LD_ABS_W, ARCH),
        // Same architecture: go on; another one is bubblewrap's filter's to kill.
        jump(JEQ_K, AUDIT_ARCH, 1, 0),
        stmt(RET_K, RET_ALLOW),
        stmt(LD_ABS_W, NR),
    ];
    if cfg!(target_arch = "x86_64") {
        p.push(jump(JSET_K, 0x4000_0000, 0, 1));
        p.push(stmt(RET_K, RET_EPERM));
    }
    for nr in [
        libc::SYS_connect,
        libc::SYS_sendmsg,
        libc::SYS_sendmmsg,
        libc::SYS_execve,
        libc::SYS_execveat,
    ] {
        p.push(jump(JEQ_K, nr as u32, 0, 1));
        p.push(stmt(RET_K, RET_NOTIFY));
    }
    // sendto(fd, buf, len, flags, dest_addr, addrlen): a null dest_addr sends on a connected
    // socket, whose connect was already seen.
    p.extend([
        jump(JEQ_K, libc::SYS_sendto as u32, 0, 6),
        stmt(LD_ABS_W, arg_low(4)),
        jump(JEQ_K, 0, 1, 0),
        stmt(RET_K, RET_NOTIFY),
        stmt(LD_ABS_W, arg_high(4)),
        jump(JEQ_K, 0, 1, 0),
        stmt(RET_K, RET_NOTIFY),
        stmt(RET_K, RET_ALLOW),
    ]);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny interpreter of the instructions this program uses, to check its decisions
    /// without installing it.
    fn run(prog: &[sock_filter], data: &[u8; 64]) -> u32 {
        let word = |at: u32| u32::from_ne_bytes(data[at as usize..at as usize + 4].try_into().unwrap());
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let ins = prog[pc];
            pc += 1;
            match ins.code {
                LD_ABS_W => acc = word(ins.k),
                JEQ_K => pc += usize::from(if acc == ins.k { ins.jt } else { ins.jf }),
                JSET_K => pc += usize::from(if acc & ins.k != 0 { ins.jt } else { ins.jf }),
                RET_K => return ins.k,
                other => panic!("unexpected instruction {other:#x}"),
            }
        }
    }

    fn data(nr: i64, arch: u32, args: [u64; 6]) -> [u8; 64] {
        let mut d = [0u8; 64];
        d[0..4].copy_from_slice(&(nr as u32).to_ne_bytes());
        d[4..8].copy_from_slice(&arch.to_ne_bytes());
        for (i, a) in args.iter().enumerate() {
            d[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_ne_bytes());
        }
        d
    }

    #[test]
    fn connect_and_addressed_sendto_are_notified_the_rest_allowed() {
        let p = program();
        assert_eq!(
            run(&p, &data(libc::SYS_connect, AUDIT_ARCH, [3, 0x1000, 16, 0, 0, 0])),
            RET_NOTIFY
        );
        let addressed = [3, 0x1000, 10, 0, 0x7fff_0000_2000, 16];
        assert_eq!(run(&p, &data(libc::SYS_sendto, AUDIT_ARCH, addressed)), RET_NOTIFY);
        let high_only = [3, 0x1000, 10, 0, 0x7fff_0000_0000, 16];
        assert_eq!(run(&p, &data(libc::SYS_sendto, AUDIT_ARCH, high_only)), RET_NOTIFY);
        assert_eq!(
            run(&p, &data(libc::SYS_sendto, AUDIT_ARCH, [3, 0x1000, 10, 0, 0, 0])),
            RET_ALLOW
        );
        assert_eq!(run(&p, &data(libc::SYS_read, AUDIT_ARCH, [0; 6])), RET_ALLOW);
        assert_eq!(run(&p, &data(libc::SYS_execve, AUDIT_ARCH, [0; 6])), RET_NOTIFY);
        assert_eq!(run(&p, &data(libc::SYS_execveat, AUDIT_ARCH, [0; 6])), RET_NOTIFY);
        assert_eq!(
            run(&p, &data(libc::SYS_sendmsg, AUDIT_ARCH, [3, 0x1000, 0, 0, 0, 0])),
            RET_NOTIFY
        );
        assert_eq!(
            run(&p, &data(libc::SYS_sendmmsg, AUDIT_ARCH, [3, 0x1000, 2, 0, 0, 0])),
            RET_NOTIFY
        );
        assert_eq!(
            run(&p, &data(libc::SYS_recvmsg, AUDIT_ARCH, [3, 0x1000, 0, 0, 0, 0])),
            RET_ALLOW
        );
        assert_eq!(run(&p, &data(libc::SYS_connect, 0x4000_0003, [0; 6])), RET_ALLOW);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x32_aliases_cannot_dodge_the_watch() {
        let p = program();
        let x32_connect = libc::SYS_connect | 0x4000_0000;
        assert_eq!(run(&p, &data(x32_connect, AUDIT_ARCH, [0; 6])), RET_EPERM);
        assert_eq!(run(&p, &data(0x4000_0000 | 520, AUDIT_ARCH, [0; 6])), RET_EPERM);
        // x32's own sendmsg/sendmmsg numbers.
        assert_eq!(run(&p, &data(0x4000_0000 | 518, AUDIT_ARCH, [0; 6])), RET_EPERM);
        assert_eq!(run(&p, &data(0x4000_0000 | 538, AUDIT_ARCH, [0; 6])), RET_EPERM);
    }
}

// Package shell is the tiny command set a simulated container runs: its
// own command (the kubelet plays it out on a simulated clock), `kubectl
// exec` and an attached shell: ls, cat, env, printenv, hostname, echo,
// pwd, sleep, true, false, test/[, touch, mkdir, rm, date, seq, wc, grep,
// head, tail, printf, nslookup, wget, tar (what kubectl cp runs, both
// ways), curl (curl.go, in images that have it) and sh — and bash, in
// images that have it (with -c, or reading
// commands from stdin) — whose scripts may use ';', '&&', '||', pipes
// (text.go: the programs run one after the other, each reading what the
// one before printed), quotes, $VAR, ${VAR}, $?, command substitution
// $(…), cd, export, read, exec, VAR=value, exit, output redirections
// (> FILE, >> FILE, 2> FILE, 2>&1, > /dev/null), arithmetic expansion
// $((…)) (arith.go), and while, until, for and if with break and continue
// (compound.go).
// Beyond its own programs, a command may be one of the image's
// (Environment.Programs: nginx, perl, redis-server…, which the kubelet's
// package programs knows per image), run as a process with the shell's
// variables, streams and clock.
// Commands run against an Environment: the container's variables and
// files (package containerenv builds it from the pod), read-only under
// ConfigMap, Secret, projected and downward API mounts, its writable
// Layer (fs.go), which keeps what execs wrote while the container runs,
// and its writable Mounts (volume.go): an emptyDir's or a persistent
// volume's storage, which keeps what is written under the mount point
// beyond the container.
//
// It stands in for the container's own processes, which a real kubelet
// starts through the container runtime (CRI ExecSync/Exec, runc): the
// wording of errors and the exit codes follow busybox's ash, the shell of
// the images courses use, and runc for a program that does not exist
// ("executable file not found in $PATH", exit 126).
//
// Left out: input redirections (<), here-documents, globbing, backquotes,
// subshells, case, functions, job control, file modes, owners and links
// (tar carries regular files and directories only), and every other
// program; a terminal is only echoed line by line.
package shell

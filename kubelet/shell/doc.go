// Package shell is the tiny command set a simulated container can run for
// `kubectl exec` and an attached shell: ls, cat, env, printenv, hostname,
// echo, pwd, sleep, true, false, test/[, touch, mkdir, tar (what kubectl
// cp runs, both ways) and sh — and bash, in images that have it (with -c,
// or reading commands from stdin)
// whose scripts may use ';', '&&', '||', quotes, $VAR, ${VAR}, $?, cd,
// export, VAR=value, exit, output redirections (> FILE, >> FILE,
// 2> FILE, 2>&1, > /dev/null), arithmetic expansion $((…)) (arith.go),
// and while, until, for and if with break and continue (compound.go).
// Commands run against an Environment: the container's variables and
// files (package containerenv builds it from the pod), read-only under
// ConfigMap, Secret, projected and downward API mounts, and its writable
// Layer (fs.go), which keeps what execs wrote while the container runs.
//
// It stands in for the container's own processes, which a real kubelet
// starts through the container runtime (CRI ExecSync/Exec, runc): the
// wording of errors and the exit codes follow busybox's ash, the shell of
// the images courses use, and runc for a program that does not exist
// ("executable file not found in $PATH", exit 126).
//
// Left out: pipes, input redirections (<), here-documents, globbing,
// command substitution $(…), case, functions, job control, rm, file
// modes, owners and links (tar carries regular files and directories
// only), and every other program; a terminal is only echoed line by line.
package shell

// Package shell is the tiny command set a simulated container runs: its
// own command (the kubelet plays it out on a simulated clock), `kubectl
// exec` and an attached shell: ls, cat, env, printenv, hostname, echo,
// pwd, sleep, true, false, test/[, touch, mkdir, rm, date, seq, wc, grep,
// hexdump -C, head, tail, which, nslookup, wget, ping, tar (what kubectl
// cp runs, both ways), curl (curl.go, in images that have it) and sh — and bash, in
// images that have it — with -c, a script file of the container's, or
// reading commands from stdin.
//
// The shell's language is mvdan.cc/sh's: its syntax package parses a
// script and its interp package runs it (sh.go), so scripts have what
// POSIX sh and bash give them — quotes, variables and their expansions,
// $(…) and backquotes, $((…)), globs, pipes, &&, ||, if, while, until,
// for, case, functions, subshells, { … } groups, here-documents, every
// redirection (<, >, >>, 2>&1, <<<), read, eval, ., set -e, trap EXIT.
// The interpreter reaches nothing of the machine kubesim runs on: its
// commands come to the simulated programs (handlers.go), its files to the
// container's simulated ones (files.go), and what it would run in
// goroutines or time on the real clock is rewritten first (rewrite.go),
// so that a play is the same every time. Where busybox words an error
// its own way (a syntax error, cd, exit, a redirection's file), the words
// are ash's (syntaxerr.go, sh.go's reword).
//
// Beyond its own programs, a command may be one of the image's
// (Environment.Programs: nginx, perl, redis-server…, which the kubelet's
// package programs knows per image), run as a process with the shell's
// exported variables, streams and clock.
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
// Left out: what would run beside the script — background jobs (&), job
// control, coprocesses and process substitutions, which are refused; a
// pipeline's sides run one after the other (so a left-hand side that
// never ends holds the pipeline, and pipefail is not kept); signals
// (trap keeps EXIT and ERR, kill finds no process); file times and links,
// and modes and owners beyond those the kubelet gives a volume's files and
// those an image's program creates a file with (stat.go; tar carries
// regular files and directories only); what
// an interactive shell's commands would read from the terminal; bash's
// dialect is also sh's (arrays, [[ ]], (( )) work where ash would refuse
// them), brace expansion aside; every other program; a terminal is only
// echoed line by line.
package shell

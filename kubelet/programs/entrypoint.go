package programs

import (
	"context"
	"strings"
)

// entrypoint is the docker-entrypoint.sh of docker-library's images
// (bash, redis, mongo, postgres, mysql): arguments that begin with an
// option (or, for redis, a .conf file) are the main program's, so it is
// put before them; when the main program is to run, setup (nil: none)
// runs first — the databases' initialization, which may refuse (setup's
// code, not 0, and no exec) — then the script execs its arguments.
func entrypoint(main string, setup func(r Run) int) Program {
	return func(ctx context.Context, r Run) int {
		args := r.Args[1:]
		if len(args) > 0 && (strings.HasPrefix(args[0], "-") || main == "redis-server" && strings.HasSuffix(args[0], ".conf")) {
			args = append([]string{main}, args...)
		}
		if setup != nil && len(args) > 0 && args[0] == main {
			if code := setup(r); code != 0 {
				return code
			}
		}
		return execArgs(r.Process, args, "/usr/local/bin/docker-entrypoint.sh: line 24")
	}
}

package programs

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// postgres's image: docker-entrypoint.sh initializes the database on the
// first start, which needs a superuser password (POSTGRES_PASSWORD, or
// POSTGRES_HOST_AUTH_METHOD=trust): without it the container exits 1
// with the image's own error, the one a course meets first. Then
// postgres says it accepts connections. Its protocol is not simulated:
// connections to 5432 are refused.
var postgresImage = Image{Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"postgres"},
	Shell: true, Bash: true, alpineTags: true,
	programs: map[string]Program{
		"docker-entrypoint.sh": entrypoint("postgres", postgresSetup),
		"postgres":             postgres,
	}}

// postgresVersion is the release a postgres tag runs.
func postgresVersion(tag string) string {
	major, _, _ := strings.Cut(tag, ".")
	major, _, _ = strings.Cut(major, "-")
	if strings.Trim(major, "0123456789") != "" || major == "" {
		major = "17"
	}
	if v, ok := map[string]string{"13": "13.20", "14": "14.17", "15": "15.12", "16": "16.8", "17": "17.4"}[major]; ok {
		return v
	}
	return major + ".0"
}

// postgresInit is how long initdb and the first start take.
const postgresInit = 1500 * time.Millisecond

func postgresSetup(r Run) int {
	p := r.Process
	if p.Getenv("POSTGRES_PASSWORD") == "" && p.Getenv("POSTGRES_HOST_AUTH_METHOD") != "trust" {
		fmt.Fprint(p.Stderr, `Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".

       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all
       connections without a password. This is *not* recommended.

       See PostgreSQL documentation about "trust":
       https://www.postgresql.org/docs/current/auth-trust.html
`)
		return 1
	}
	fmt.Fprintf(p.Stdout, `The files belonging to this database system will be owned by user "postgres".
This user must also own the server process.

The database cluster will be initialized with locale "en_US.utf8".
The default database encoding has accordingly been set to "UTF8".
The default text search configuration will be set to "english".

Data page checksums are disabled.

fixing permissions on existing directory /var/lib/postgresql/data ... ok
creating subdirectories ... ok
selecting dynamic shared memory implementation ... posix
selecting default "max_connections" ... 100
selecting default "shared_buffers" ... 128MB
selecting default time zone ... Etc/UTC
creating configuration files ... ok
running bootstrap script ... ok
performing post-bootstrap initialization ... ok
syncing data to disk ... ok

Success. You can now start the database server using:

    pg_ctl -D /var/lib/postgresql/data -l logfile start

`)
	<-p.Clock.After(postgresInit)
	fmt.Fprintf(p.Stdout, "waiting for server to start.... done\nserver started\n\n/usr/local/bin/docker-entrypoint.sh: ignoring /docker-entrypoint-initdb.d/*\n\n")
	fmt.Fprintf(p.Stdout, "waiting for server to shut down.... done\nserver stopped\n\nPostgreSQL init process complete; ready for start up.\n\n")
	return 0
}

// postgres is the server: it says it listens and is ready, then runs
// until killed.
func postgres(ctx context.Context, r Run) int {
	p, version := r.Process, postgresVersion(r.Tag)
	for _, a := range p.Args[1:] {
		if a == "--version" || a == "-V" {
			fmt.Fprintf(p.Stdout, "postgres (PostgreSQL) %s (Debian %s-1.pgdg120+1)\n", version, version)
			return 0
		}
	}
	ts := p.Clock.Now().UTC().Format("2006-01-02 15:04:05.000 MST")
	for _, l := range []string{
		fmt.Sprintf("[1] LOG:  starting PostgreSQL %s (Debian %s-1.pgdg120+1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", version, version),
		`[1] LOG:  listening on IPv4 address "0.0.0.0", port 5432`,
		`[1] LOG:  listening on IPv6 address "::", port 5432`,
		`[1] LOG:  listening on Unix socket "/var/run/postgresql/.s.PGSQL.5432"`,
		"[62] LOG:  database system was shut down at " + ts,
		"[1] LOG:  database system is ready to accept connections",
	} {
		fmt.Fprintf(p.Stderr, "%s %s\n", ts, l)
	}
	return serveUntilKilled(ctx, p)
}

// mysql's image: its entrypoint needs one of the root password
// variables, or the container exits 1 with the image's error; then mysqld
// says it is ready for connections (its protocol is not simulated).
var mysqlImage = Image{Entrypoint: []string{"docker-entrypoint.sh"}, Cmd: []string{"mysqld"}, Shell: true, Bash: true,
	programs: map[string]Program{
		"docker-entrypoint.sh": entrypoint("mysqld", mysqlSetup),
		"mysqld":               mysqld,
	}}

// mysqlVersion is the release a mysql tag runs.
func mysqlVersion(tag string) string {
	switch {
	case strings.HasPrefix(tag, "5.7"):
		return "5.7.44"
	case strings.HasPrefix(tag, "8.0"):
		return "8.0.41"
	case strings.HasPrefix(tag, "9"):
		return "9.2.0"
	}
	return "8.4.4"
}

func mysqlSetup(r Run) int {
	p, version := r.Process, mysqlVersion(r.Tag)
	ts := p.Clock.Now().UTC().Format("2006-01-02 15:04:05-07:00")
	fmt.Fprintf(p.Stdout, "%s [Note] [Entrypoint]: Entrypoint script for MySQL Server %s-1.el9 started.\n", ts, version)
	if p.Getenv("MYSQL_ROOT_PASSWORD") == "" && p.Getenv("MYSQL_ALLOW_EMPTY_PASSWORD") == "" && p.Getenv("MYSQL_RANDOM_ROOT_PASSWORD") == "" {
		fmt.Fprintf(p.Stderr, "%s [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n"+
			"    You need to specify one of the following as an environment variable:\n"+
			"    - MYSQL_ROOT_PASSWORD\n    - MYSQL_ALLOW_EMPTY_PASSWORD\n    - MYSQL_RANDOM_ROOT_PASSWORD\n", ts)
		return 1
	}
	fmt.Fprintf(p.Stdout, "%s [Note] [Entrypoint]: Initializing database files\n", ts)
	<-p.Clock.After(postgresInit)
	fmt.Fprintf(p.Stdout, "%s [Note] [Entrypoint]: Database files initialized\n%s [Note] [Entrypoint]: MySQL init process done. Ready for start up.\n",
		p.Clock.Now().UTC().Format("2006-01-02 15:04:05-07:00"), p.Clock.Now().UTC().Format("2006-01-02 15:04:05-07:00"))
	return 0
}

func mysqld(ctx context.Context, r Run) int {
	p, version := r.Process, mysqlVersion(r.Tag)
	ts := p.Clock.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	fmt.Fprintf(p.Stderr, "%s 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld %s) starting as process 1\n", ts, version)
	fmt.Fprintf(p.Stderr, "%s 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '%s'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.\n", ts, version)
	return serveUntilKilled(ctx, p)
}

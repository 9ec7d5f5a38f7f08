package shell

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The text programs a container's script uses beside echo and cat: wc,
// grep, head, tail and seq (the output of one is the input of the next in
// a pipeline, `echo hi | wc -c`), date and rm, with the options courses
// write. Left out: every other option.

// input is what a filter reads: its file operands, or stdin without any.
func (s *state) input(prog string, files []string) ([]byte, int) {
	if len(files) == 0 {
		data, _ := io.ReadAll(s.stdin)
		return data, 0
	}
	var b bytes.Buffer
	code := 0
	for _, f := range files {
		if f == "-" {
			io.Copy(&b, s.stdin)
			continue
		}
		data, ok := s.file(s.abs(f))
		if !ok {
			fmt.Fprintf(s.stderr, "%s: %s: No such file or directory\n", prog, f)
			code = 1
			continue
		}
		b.Write(data)
	}
	return b.Bytes(), code
}

// wc counts lines, words and bytes (-l, -w, -c pick), busybox's layout:
// the counts right-aligned in 7 columns when several, alone otherwise.
func (s *state) wc(args []string) int {
	var pick []byte
	var files []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			pick = append(pick, a[1:]...)
			continue
		}
		files = append(files, a)
	}
	data, code := s.input("wc", files)
	counts := map[byte]int{'l': bytes.Count(data, []byte("\n")), 'w': len(strings.Fields(string(data))), 'c': len(data)}
	if len(pick) == 0 {
		pick = []byte("lwc")
	}
	var cols []string
	for _, p := range []byte("lwc") {
		if bytes.IndexByte(pick, p) >= 0 {
			cols = append(cols, strconv.Itoa(counts[p]))
		}
	}
	if len(cols) == 1 && len(files) == 0 {
		fmt.Fprintln(s.stdout, cols[0])
		return code
	}
	for i, c := range cols {
		cols[i] = fmt.Sprintf("%7s", c)
	}
	line := strings.Join(cols, " ")
	if len(files) > 0 {
		line += " " + strings.Join(files, " ")
	}
	fmt.Fprintln(s.stdout, line)
	return code
}

// grep prints the lines matching a regular expression (-i, -v, -c, -q,
// -F, -E accepted); status 1 when none matched, 2 on a bad pattern.
func (s *state) grep(args []string) int {
	var ignore, invert, count, quiet, fixed bool
	var pattern *string
	var files []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 && pattern == nil {
			for _, c := range a[1:] {
				switch c {
				case 'i':
					ignore = true
				case 'v':
					invert = true
				case 'c':
					count = true
				case 'q':
					quiet = true
				case 'F':
					fixed = true
				}
			}
			continue
		}
		if pattern == nil {
			p := a
			pattern = &p
			continue
		}
		files = append(files, a)
	}
	if pattern == nil {
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: grep [-HhnlLoqvsrRiwFE] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]...")
		return 2
	}
	expr := *pattern
	if fixed {
		expr = regexp.QuoteMeta(expr)
	}
	if ignore {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		fmt.Fprintf(s.stderr, "grep: bad regex '%s'\n", *pattern)
		return 2
	}
	data, code := s.input("grep", files)
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if re.MatchString(sc.Text()) == invert {
			continue
		}
		n++
		if !count && !quiet {
			fmt.Fprintln(s.stdout, sc.Text())
		}
	}
	if count {
		fmt.Fprintln(s.stdout, n)
	}
	if code != 0 && !quiet {
		return 2
	}
	if n == 0 {
		return 1
	}
	return 0
}

// headTail prints the first (head) or last (tail) N lines, 10 by
// default: -n N, -N; tail -f (or -F) then waits forever.
func (s *state) headTail(prog string, args []string) int {
	n := 10
	var files []string
	follow := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case prog == "tail" && (a == "-f" || a == "-F"):
			follow = true
		case a == "-n" && i+1 < len(args):
			i++
			a = "-" + strings.TrimPrefix(args[i], "-")
			fallthrough
		case strings.HasPrefix(a, "-") && len(a) > 1:
			v, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(a, "-n"), "-"))
			if err != nil || v < 0 {
				fmt.Fprintf(s.stderr, "%s: invalid number '%s'\n", prog, a)
				return 1
			}
			n = v
		default:
			files = append(files, a)
		}
	}
	data, code := s.input(prog, files)
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if prog == "head" {
		lines = lines[:min(n, len(lines))]
	} else {
		lines = lines[max(len(lines)-n, 0):]
	}
	io.WriteString(s.stdout, strings.Join(lines, ""))
	if follow {
		// tail -f waits for more that never comes (nothing else writes
		// the file while it runs): the containers' "tail -f /dev/null"
		// that keeps them running.
		return s.sleep([]string{"infinity"})
	}
	return code
}

// seq prints the numbers from FIRST (1) to LAST, by INCREMENT (1).
func (s *state) seq(args []string) int {
	nums := make([]int64, len(args))
	for i, a := range args {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			fmt.Fprintf(s.stderr, "seq: invalid number '%s'\n", a)
			return 1
		}
		nums[i] = v
	}
	first, step, last := int64(1), int64(1), int64(0)
	switch len(nums) {
	case 1:
		last = nums[0]
	case 2:
		first, last = nums[0], nums[1]
	case 3:
		first, step, last = nums[0], nums[1], nums[2]
	default:
		fmt.Fprintln(s.stderr, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: seq [-w] [-s SEP] [FIRST [INC]] LAST")
		return 1
	}
	if step == 0 {
		return 0
	}
	var b strings.Builder
	for v, n := first, 0; (step > 0 && v <= last || step < 0 && v >= last) && n < maxSeq; v, n = v+step, n+1 {
		b.WriteString(strconv.FormatInt(v, 10))
		b.WriteByte('\n')
	}
	io.WriteString(s.stdout, b.String())
	return 0
}

// maxSeq bounds what seq prints (a simulated container's output is kept).
const maxSeq = 100000

// date prints the clock's time as busybox does (UTC: the images set no
// time zone); +FORMAT knows %Y %m %d %H %M %S %s %T %F.
func (s *state) date(args []string) int {
	now := s.clock.Now().UTC()
	for _, a := range args {
		if f, ok := strings.CutPrefix(a, "+"); ok {
			r := strings.NewReplacer("%Y", now.Format("2006"), "%m", now.Format("01"), "%d", now.Format("02"),
				"%H", now.Format("15"), "%M", now.Format("04"), "%S", now.Format("05"), "%s", strconv.FormatInt(now.Unix(), 10),
				"%T", now.Format("15:04:05"), "%F", now.Format("2006-01-02"), "%%", "%")
			fmt.Fprintln(s.stdout, r.Replace(f))
			return 0
		}
	}
	fmt.Fprintln(s.stdout, now.Format("Mon Jan _2 15:04:05 MST 2006"))
	return 0
}

// rm removes files (-f: quietly, missing ones too; -r: directories).
func (s *state) rm(args []string) int {
	force, recursive, code := false, false, 0
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			force = force || strings.Contains(a, "f")
			recursive = recursive || strings.ContainsAny(a, "rR")
			continue
		}
		p := s.abs(a)
		_, isFile := s.file(p)
		switch {
		case !isFile && !s.isDir(p):
			if !force {
				fmt.Fprintf(s.stderr, "rm: can't remove '%s': No such file or directory\n", a)
				code = 1
			}
		case !isFile && !recursive:
			fmt.Fprintf(s.stderr, "rm: '%s' is a directory\n", a)
			code = 1
		default:
			if err := s.writable(p); err != nil {
				fmt.Fprintf(s.stderr, "rm: can't remove '%s': %v\n", a, err)
				code = 1
				continue
			}
			if v, rel, ok := s.mountAt(p); ok {
				if rel == "/" {
					fmt.Fprintf(s.stderr, "rm: can't remove '%s': %v\n", a, errBusy)
					code = 1
					continue
				}
				if err := v.RemoveAll(rel); err != nil {
					fmt.Fprintf(s.stderr, "rm: can't remove '%s': %v\n", a, err)
					code = 1
				}
				continue
			}
			s.env.Layer.remove(p)
		}
	}
	return code
}

// Forever is how long `sleep infinity` asks the clock to wait: a clock
// that plays a script out (the kubelet's) knows from it that the script
// will not go on.
const Forever = 100 * 365 * 24 * time.Hour

// sleepArg reads one of sleep's operands: seconds (maybe fractional),
// with an s, m, h or d suffix, or inf/infinity (false: not a number).
func sleepArg(a string) (d time.Duration, forever, ok bool) {
	if a == "inf" || a == "infinity" {
		return 0, true, true
	}
	mult := float64(time.Second)
	switch {
	case strings.HasSuffix(a, "d"):
		mult, a = float64(24*time.Hour), strings.TrimSuffix(a, "d")
	case strings.HasSuffix(a, "h"):
		mult, a = float64(time.Hour), strings.TrimSuffix(a, "h")
	case strings.HasSuffix(a, "m"):
		mult, a = float64(time.Minute), strings.TrimSuffix(a, "m")
	case strings.HasSuffix(a, "s"):
		a = strings.TrimSuffix(a, "s")
	}
	f, err := strconv.ParseFloat(a, 64)
	if err != nil || f < 0 || f != f {
		return 0, false, false
	}
	if f*mult >= float64(Forever) {
		return 0, true, true
	}
	return time.Duration(f * mult), false, true
}

// hexdump -C prints its input canonically: each 16 bytes at their offset
// (8 hex digits), in hex (a space more after the eighth) and as text
// between bars, dots for what does not print; then the length. Without
// -C it is refused (the two-byte words of plain hexdump are not kept).
func (s *state) hexdump(args []string) int {
	var files []string
	canonical := false
	for _, a := range args {
		switch {
		case a == "-C":
			canonical = true
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(s.stderr, "hexdump: invalid option -- '%s'\n", strings.TrimPrefix(a, "-"))
			return 1
		default:
			files = append(files, a)
		}
	}
	if !canonical {
		fmt.Fprintln(s.stderr, "hexdump: kubesim has only hexdump -C")
		return 1
	}
	data, code := s.input("hexdump", files)
	var b strings.Builder
	for off := 0; off < len(data); off += 16 {
		line := data[off:min(off+16, len(data))]
		fmt.Fprintf(&b, "%08x  ", off)
		for i := 0; i < 16; i++ {
			if i < len(line) {
				fmt.Fprintf(&b, "%02x ", line[i])
			} else {
				b.WriteString("   ")
			}
			if i == 7 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(" |")
		for _, c := range line {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			b.WriteByte(c)
		}
		b.WriteString("|\n")
	}
	if len(data) > 0 {
		fmt.Fprintf(&b, "%08x\n", len(data))
	}
	io.WriteString(s.stdout, b.String())
	return code
}

// Command benchtool is the Go half of bench/run.sh: it lays out scenario
// folders for OpenSSH stand-in hosts, lists the command set every tool
// runs, and runs a TCP delay proxy so that every tool in the comparison
// faces the same round-trip time (the kernel here has no netem).
//
//	benchtool hosts -scenario healthy -n 20 -prefix h -out DIR
//	benchtool proxy -rtt 5ms -map FILE     (lines: LISTEN_ADDR TARGET_ADDR)
//	benchtool lab -n 1000 -rtt 5ms -cmd-latency 20ms -out DIR
//	benchtool lab -n 10 -flood 3670016 -fill identifiers -out DIR
//	benchtool standin-names                (the ESXi stand-in's command names, a line each)
//
// lab is the in-process lab (fixtures/lab) in its own process, like
// `pvrdma-doctor lab serve`, plus the per-host counters: on SIGTERM it
// writes DIR/stats ("tcp_max tcp_min handshakes_max handshakes_min
// sessions_total commands_total").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/standin"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/scan"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtool hosts|proxy ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "hosts":
		err = cmdHosts(os.Args[2:])
	case "proxy":
		err = cmdProxy(os.Args[2:])
	case "lab":
		err = cmdLab(os.Args[2:])
	case "standin-names":
		// The names the ESXi stand-in answers as (esxcli, vsish, ...,
		// uname): linked on the sshd hosts' PATH, as the OpenSSH tests do.
		for _, n := range standin.ESXi.Names {
			fmt.Println(n)
		}
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

// cmdHosts writes n host folders (copies of the scenario's hosts, in turn)
// under out/scenario/NAME, the command lines pvrdma-doctor runs on each
// (stage 1 and stage 2, no probes) to out/cmds/NAME, and the names, one a
// line, to out/names.
func cmdHosts(args []string) error {
	fs := flag.NewFlagSet("hosts", flag.ExitOnError)
	scen := fs.String("scenario", "healthy", "embedded scenario to copy hosts from")
	n := fs.Int("n", 3, "number of hosts")
	out := fs.String("out", "", "output directory")
	fs.Parse(args)
	if *out == "" || *n < 1 {
		return errors.New("hosts: -out and -n >= 1 are required")
	}
	sc, err := fixtures.Load(*scen)
	if err != nil {
		return err
	}
	fleet := fixtures.Fleet(sc, *n)
	if err := os.MkdirAll(filepath.Join(*out, "cmds"), 0o755); err != nil {
		return err
	}
	var names strings.Builder
	for _, h := range fleet.Hosts {
		name := h.Name
		dir := filepath.Join(*out, "scenario", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for _, f := range h.Files() {
			r := h.Respond(strings.TrimSuffix(f, ".txt"))
			if err := os.WriteFile(filepath.Join(dir, f), []byte(r.Stdout), 0o644); err != nil {
				return err
			}
			if r.Stderr != "" {
				os.WriteFile(filepath.Join(dir, f+".stderr"), []byte(r.Stderr), 0o644)
			}
			if r.Exit != 0 {
				os.WriteFile(filepath.Join(dir, f+".exit"), []byte(fmt.Sprint(r.Exit)), 0o644)
			}
		}
		// The command set: what the collector runs on this host (no probes).
		res := scan.Collect(context.Background(), []hostio.Target{{Name: name}},
			collect.Options{Runner: h.Runner(), Probes: false})
		var cmds []string
		for _, c := range res[0].Captures {
			cmds = append(cmds, c.Command)
		}
		if err := os.WriteFile(filepath.Join(*out, "cmds", name), []byte(strings.Join(cmds, "\n")+"\n"), 0o644); err != nil {
			return err
		}
		names.WriteString(name + "\n")
	}
	// How many of them are stage 1 (the rest depend on their output),
	// for the results' description of the command set.
	if err := os.WriteFile(filepath.Join(*out, "stage1"), []byte(fmt.Sprintln(len(collect.Stage1()))), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(*out, "names"), []byte(names.String()), 0o644)
}

// cmdProxy forwards every LISTEN address of the map file to its TARGET,
// delaying each byte by rtt/2 in each direction (throughput kept: data is
// stamped on arrival and released when due), until SIGTERM/SIGINT.
func cmdProxy(args []string) error {
	fs := flag.NewFlagSet("proxy", flag.ExitOnError)
	rtt := fs.Duration("rtt", 5*time.Millisecond, "round-trip time to add")
	mapFile := fs.String("map", "", "file of 'LISTEN TARGET' lines")
	ready := fs.String("ready", "", "file to create once listening")
	fs.Parse(args)
	b, err := os.ReadFile(*mapFile)
	if err != nil {
		return err
	}
	var lns []net.Listener
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		ln, err := net.Listen("tcp", f[0])
		if err != nil {
			return err
		}
		lns = append(lns, ln)
		go serveProxy(ln, f[1], *rtt/2)
	}
	if *ready != "" {
		os.WriteFile(*ready, []byte("ok\n"), 0o644)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	for _, ln := range lns {
		ln.Close()
	}
	return nil
}

func serveProxy(ln net.Listener, target string, d time.Duration) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				return
			}
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); pipeDelayed(u, c, d) }()
			go func() { defer wg.Done(); pipeDelayed(c, u, d) }()
			wg.Wait()
			c.Close()
			u.Close()
		}()
	}
}

type chunk struct {
	data []byte
	due  time.Time
}

// pipeDelayed copies src to dst, each chunk released d after it was read.
func pipeDelayed(dst, src net.Conn, d time.Duration) {
	ch := make(chan chunk, 1024)
	go func() {
		defer close(ch)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				ch <- chunk{buf[:n], time.Now().Add(d)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range ch {
		if w := time.Until(c.due); w > 0 {
			time.Sleep(w)
		}
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	for range ch { // drain so the reader can finish
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
	_ = io.EOF
}

func cmdLab(args []string) error {
	fs := flag.NewFlagSet("lab", flag.ExitOnError)
	scen := fs.String("scenario", "healthy", "embedded scenario to build the fleet from")
	n := fs.Int("n", 10, "number of hosts")
	rtt := fs.Duration("rtt", 0, "simulated round-trip time")
	lat := fs.Duration("cmd-latency", 0, "simulated command latency")
	out := fs.String("out", "", "directory for hosts, known_hosts, password, ready, stats")
	flood := fs.Int64("flood", 0, "every host answers each esxcli command with this many bytes of -fill (a host flooding near the caps)")
	fill := fs.String("fill", string(lab.FillText), "what -flood sends: text, identifiers or continuation (one value continued by indented lines)")
	fs.Parse(args)
	sc, err := fixtures.Load(*scen)
	if err != nil {
		return err
	}
	fleet := fixtures.Fleet(sc, *n)
	opts := lab.Options{RTT: *rtt, CmdLatency: *lat}
	if *flood > 0 {
		opts.Faults = map[string]lab.Fault{}
		for _, h := range fleet.Hosts {
			opts.Faults[h.Name] = lab.Fault{Hostile: lab.Hostile{Streams: []lab.Stream{{Prefix: "esxcli", Fill: lab.Fill(*fill), Bytes: *flood}}}}
		}
	}
	l, err := lab.Start(fleet, opts)
	if err != nil {
		return err
	}
	defer l.Close()
	var hosts []string
	var pw string
	for _, h := range l.Hosts() {
		hosts = append(hosts, h.Addr)
		pw = h.Password
	}
	if err := l.WriteKnownHosts(filepath.Join(*out, "known_hosts")); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(*out, "hosts"), []byte(strings.Join(hosts, "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(*out, "password"), []byte(pw), 0o600)
	os.WriteFile(filepath.Join(*out, "ready"), []byte("ok\n"), 0o644)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	tmax, tmin, hmax, hmin, sess, cmds := 0, -1, 0, -1, 0, 0
	for _, h := range l.Hosts() {
		st := l.Stats(h.Name)
		tmax, hmax = max(tmax, st.TCPConnections), max(hmax, st.Handshakes)
		if tmin < 0 || st.TCPConnections < tmin {
			tmin = st.TCPConnections
		}
		if hmin < 0 || st.Handshakes < hmin {
			hmin = st.Handshakes
		}
		sess += st.Sessions
		cmds += len(st.Commands)
	}
	return os.WriteFile(filepath.Join(*out, "stats"), []byte(fmt.Sprintf("%d %d %d %d %d %d\n", tmax, tmin, hmax, hmin, sess, cmds)), 0o644)
}

package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// percentile returns the p-th percentile (0-100) of the durations by nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

// medianInt is the median of sizes by nearest rank.
func medianInt(vs []int64) int64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[(len(s)+1)/2-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

// mibBytes is a size given in bytes, in MiB.
func mibBytes(bytes int64) string { return fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20)) }

// procStatus reads a "VmRSS"-style field of /proc/<pid>/status in KiB.
func procStatus(pid int, field string) (int64, error) {
	return procStatusFile(fmt.Sprintf("/proc/%d/status", pid), field)
}

// procStatusFile reads a "Field:   123 kB" line of a /proc file.
func procStatusFile(path, field string) (int64, error) {
	f, err := os.Open(path) //nolint:gosec // a /proc file
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in %s", field, path)
}

// pidsOf lists the processes whose executable is path.
func pidsOf(path string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == path {
			pids = append(pids, pid)
		}
	}
	return pids
}

// usage is what a sampler saw of the processes running one executable.
type usage struct {
	peak int64         // KiB, the highest VmHWM
	cpu  time.Duration // user and system time, summed over the processes
}

// sample follows every process running path until stop is closed: their peak resident
// set (VmHWM) and the CPU time each had used when last seen.
func sample(path string, stop <-chan struct{}) <-chan usage {
	out := make(chan usage, 1)
	go func() {
		var u usage
		cpu := map[int]time.Duration{}
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, pid := range pidsOf(path) {
				if hwm, err := procStatus(pid, "VmHWM"); err == nil && hwm > u.peak {
					u.peak = hwm
				}
				if t, err := cpuTime(pid); err == nil {
					cpu[pid] = t
				}
			}
			select {
			case <-stop:
				for _, t := range cpu {
					u.cpu += t
				}
				out <- u
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// clockTicks is the unit of the CPU times in /proc/<pid>/stat (USER_HZ, 100 on Linux).
const clockTicks = 100

// cpuTime is the user and system time a process has used so far.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count from its end.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// childrenCPU is the CPU time used so far by this process's children running one of
// paths (the control plane's servers; other processes may run the same binaries).
func childrenCPU(paths ...string) time.Duration {
	var total time.Duration
	for _, path := range paths {
		for _, pid := range pidsOf(path) {
			if parent(pid) != os.Getpid() {
				continue
			}
			if t, err := cpuTime(pid); err == nil {
				total += t
			}
		}
	}
	return total
}

// parent is a process's parent's PID, or 0.
func parent(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

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

// peakRSS samples the peak resident set (VmHWM) of every process running path until
// stop is closed, and returns the highest seen.
func peakRSS(path string, stop <-chan struct{}) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, pid := range pidsOf(path) {
				if hwm, err := procStatus(pid, "VmHWM"); err == nil && hwm > peak {
					peak = hwm
				}
			}
			select {
			case <-stop:
				out <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return out
}

// Command fakehrx stands in for a ggml-hrx program under
// GGML_HRX_DEBUG_SERIAL_EXECUTION=1: it prints a synthetic raw trace to
// stderr, line by line, with ordinary output on stdout, and can end the
// ways real runs end (cleanly, killed mid-dispatch, by a device fault).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/tallyprof/tally/internal/gen/hrxgen"
)

func main() {
	decode := flag.Int("decode", 2, "decode runs")
	end := flag.String("end", "clean", "clean, cut (SIGKILL itself inside a dispatch) or fault")
	exit := flag.Int("exit", 0, "exit status after a clean end")
	wait := flag.Bool("wait", false, "after the trace, wait for SIGTERM/SIGINT and report it")
	slow := flag.Duration("slow", 0, "sleep this long after each trace line")
	pauseAt := flag.String("pause-at", "", "after the -pause-nth line containing `TEXT`, print 'fakehrx: paused' and wait to be killed")
	pauseNth := flag.Int("pause-nth", 1, "which line containing -pause-at pauses")
	trap := flag.Bool("trap", false, "while paused, trap SIGINT/SIGTERM and exit 128+N (as a program with its own handler)")
	flag.Parse()

	opt := hrxgen.Options{Seed: 11, Decode: *decode, Raw: true}
	switch *end {
	case "cut":
		opt.End = hrxgen.EndCut
	case "fault":
		opt.End = hrxgen.EndFault
	}
	var b bytes.Buffer
	if _, err := hrxgen.Write(&b, opt); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	sigs := make(chan os.Signal, 1)
	if *wait || *trap {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	}
	seen := 0
	fmt.Println("fakehrx: loading model")
	fmt.Fprintln(os.Stderr, "llama_model_load: 32 layers")
	for i, line := range bytes.SplitAfter(b.Bytes(), []byte("\n")) {
		os.Stderr.Write(line)
		if i == 10 {
			fmt.Println("fakehrx: token 1")
		}
		if *slow > 0 {
			time.Sleep(*slow)
		}
		if *pauseAt != "" && bytes.Contains(line, []byte(*pauseAt)) {
			if seen++; seen == *pauseNth {
				fmt.Println("fakehrx: paused")
				for !*trap {
					time.Sleep(time.Hour) // until the signal's default action kills it
				}
				s := <-sigs
				os.Exit(128 + int(s.(syscall.Signal)))
			}
		}
	}
	if *end == "cut" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	if *end == "fault" {
		os.Exit(134) // as after an HSA abort
	}
	if *wait {
		fmt.Println("fakehrx: waiting")
		s := <-sigs
		fmt.Printf("fakehrx: got %v\n", s)
		os.Exit(143)
	}
	fmt.Println("fakehrx: done")
	os.Exit(*exit)
}

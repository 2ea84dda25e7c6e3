package rulestore_test

import (
	"flag"
	"os"
	"testing"
)

// fuzzMinimize bounds the minimization of an input the fuzzer finds new
// coverage with, unless -fuzzminimizetime is given: a run of FuzzAdd or
// FuzzStoreFile checks rules with the compiler (milliseconds), and the
// fuzzer's minimization runs an input of n bytes up to n² times, 60 s by
// default, during which it runs no new input: `go test -fuzz` ran about
// ten inputs a minute. What an input is checked for does not change; a
// new corpus entry or a failing input is saved less minimized.
const fuzzMinimize = "50x"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if !given {
		if err := flag.Set("test.fuzzminimizetime", fuzzMinimize); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

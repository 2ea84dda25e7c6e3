package standardpack

import (
	"github.com/oarc/oarc/bench/internal/benchinput"
	"github.com/oarc/oarc/lycaon"
)

// Input is one entry of fixtures/inputs.json of the standard pack, decoded
// just enough for the tests and benchmarks.
type Input = benchinput.Input

// LoadInputs reads <dir>/fixtures/inputs.json (dir is the standard pack,
// bench/standard-pack) and returns its entries, one occurrence per entry,
// and an Env whose validators answer as the fixtures say.
func LoadInputs(dir string) ([]Input, []*lycaon.Occurrence, lycaon.Env, error) {
	return benchinput.Load(dir)
}

package synth

// The committed packages. n10000 is not committed: see bench/scaling.sh.

//go:generate go run ./internal/gensynth -n 10 -out n10
//go:generate go run ./internal/gensynth -n 100 -out n100
//go:generate go run ./internal/gensynth -n 1000 -out n1000

//go:build !unix

package proxy

import "os/exec"

// ownGroup does nothing where process groups are not Unix's.
func ownGroup(*exec.Cmd) {}

// kill stops the upstream.
func kill(cmd *exec.Cmd) { cmd.Process.Kill() }

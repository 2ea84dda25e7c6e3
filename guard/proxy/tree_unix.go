//go:build unix

package proxy

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the upstream the leader of a process group of its own,
// so that stopping it stops its children too (see kill).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// kill stops the upstream and every process of its group: a server
// started through npx (or a shell) runs as a child of the command, holds
// the upstream's output open, and would run on after the command, the
// proxy waiting for the end of that output. Process.Kill is the fallback
// when the group cannot be signalled.
func kill(cmd *exec.Cmd) {
	if syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) != nil {
		cmd.Process.Kill()
	}
}

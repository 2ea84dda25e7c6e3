package cli

// Version is oarc's version: the generated files' header names it.
const Version = "v0.4.0"

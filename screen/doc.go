// Package screen decides what may be stored in a memory: it keeps
// credentials out (a [Secrets] screen that refuses or redacts what a
// [Scanner] finds) and flags text that addresses the agent reading it
// (a [Flagger], with [Poisoning] as the built-in rule set).
//
// The library's write paths (memorybank.Bank, memories.Manager, the
// archive importers) take a [Screen] and a [Flagger] in their Options; nil
// means no check, so a host that never wires one pays nothing. The rule
// set for credentials is not here: the maintained one (gitleaks' rules,
// with their keyword prefilters, entropy thresholds and allowlists) needs
// dependencies the root module does not take, so it lives in the nested
// module screen/gitleaks, and a host may pass any other [Scanner]. The
// poisoning rules are a handful of phrases and character classes, written
// with the standard library, so they live here.
//
// Decisions: a refusal names each kind and its line and column but never
// repeats the credential (the error may be logged); a redaction replaces
// every occurrence of the credential with [Marker] of its kind, so a
// history keeps lining up version to version; a flag never refuses a
// write (a memory about prompt injection is legitimate text), it is stored
// beside the entry and shown, and hosts choose to leave flagged entries
// out of what an agent is given.
//
// The package does no I/O.
package screen

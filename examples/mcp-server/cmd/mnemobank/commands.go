package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The command line is cobra's: the root serves MCP, each subcommand is a
// cobra command whose flags are declared beside its run function. Cobra
// brings flags before or after the arguments ("--" ends them), --help on
// every command, shell completions (mnemobank completion bash|zsh|fish|
// powershell) and a suggestion for a mistyped command. Each command's help
// is its own usage text followed by its flags.

// runFunc is a command's body, given its arguments left after the flags.
type runFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// newCommandLine builds the whole command line; the root serves on t
// (stdio, or a test's transport).
func newCommandLine(t mcp.Transport) *cobra.Command {
	root := newRootCmd(t)
	root.AddCommand(newUICmd(), newExportCmd(), newImportCmd(), newCopyCmd(), newScrubCmd(),
		newSetupCmd(), newTokenCmd(), newConsolidateCmd())
	return root
}

// newCommand is a command named use whose help is usage (a text ending in
// "Flags:\n", the flags' list follows it) and whose body is run; short is
// its line in completions and in "mnemobank help".
func newCommand(use, short, usage string, run runFunc) *cobra.Command {
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Long:  strings.TrimSuffix(usage, "Flags:\n"),
		Args:  cobra.ArbitraryArgs,
		// The bodies check their arguments and say what is wrong; a usage
		// error is printed once, by runMain.
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	c.Flags().SortFlags = false // in the order declared: the store's first, as the usage texts list them
	if run != nil {
		c.RunE = func(c *cobra.Command, args []string) error {
			return run(c.Context(), args, c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr())
		}
	}
	return c
}

// completeValues makes the shell complete flag name of c with values.
func completeValues(c *cobra.Command, name string, values ...string) {
	if err := c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)); err != nil {
		panic(err) // a flag name the command does not declare: a mistake in this file
	}
}

// showHelp prints c's usage text and its flags: the root's and the
// subcommands' to the layout of their usage texts; cobra's own commands
// (help, completion) as cobra shows them.
func showHelp(defaultHelp func(*cobra.Command, []string)) func(*cobra.Command, []string) {
	return func(c *cobra.Command, args []string) {
		if !strings.Contains(c.Long, "Usage") {
			defaultHelp(c, args)
			return
		}
		printUsage(c, c.OutOrStdout())
	}
}

func printUsage(c *cobra.Command, w io.Writer) {
	fmt.Fprint(w, c.Long)
	if !strings.HasSuffix(c.Long, "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "Flags:\n"+c.LocalFlags().FlagUsages())
}

// flagError is a flag the command line got wrong: it is said, with the
// command's usage, on stderr; runMain only exits 2. An unknown flag is
// named as Go's flag package named it, which scripts may match.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		msg = "flag provided but not defined: -" + ne.GetSpecifiedName()
	}
	w := c.ErrOrStderr()
	fmt.Fprintln(w, msg)
	printUsage(c, w)
	return fmt.Errorf("%w: %s", errUsageShown, msg)
}

// noArgs is the Args check of a command that takes none: it names the
// argument, the command's flags, and the subcommand the argument may have
// been meant as.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		names = append(names, "--"+f.Name)
	})
	return fmt.Errorf("%w: unexpected argument %q; flags are %s%s", errUsage, args[0], joinAnd(names), suggest(c.Root(), args[0]))
}

// suggest is "; did you mean ...?" when name is close to a subcommand of c.
func suggest(c *cobra.Command, name string) string {
	s := c.SuggestionsFor(name)
	if len(s) == 0 {
		return ""
	}
	for i := range s {
		s[i] = fmt.Sprintf("%q", c.CommandPath()+" "+s[i])
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// joinAnd is "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// execute runs the command line args on root and returns the command that
// ran (for its --help in an error message) and its error.
func execute(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (*cobra.Command, error) {
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetHelpFunc(showHelp(root.HelpFunc()))
	root.SetFlagErrorFunc(flagError)
	root.SuggestionsMinimumDistance = 2
	root.SetArgs(append([]string{}, goStyleFlags(root, args)...)) // never nil: nil is os.Args
	return root.ExecuteContextC(ctx)
}

// goStyleFlags lets the long flags be written with one dash, as Go's flag
// package read them before (-root DIR, -help): pflag would read -root as
// the short flags -r -o -o -t. An argument "-NAME" or "-NAME=VALUE" where
// NAME is a long flag of any command (or help) gets its second dash;
// everything after "--" is left as it is.
func goStyleFlags(root *cobra.Command, args []string) []string {
	long := map[string]bool{"help": true, "version": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = len(f.Name) > 1 })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		if a == "--" {
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, _, _ := strings.Cut(a[1:], "=")
		if long[name] {
			out[i] = "-" + a
		}
	}
	return out
}

// runSubcommand runs the subcommand args[0] names, if it is one.
func runSubcommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (bool, error) {
	root := newCommandLine(nil)
	if len(args) == 0 {
		return false, nil
	}
	if c, _, err := root.Find(args[:1]); err != nil || c == root {
		return false, nil
	}
	_, err := execute(ctx, root, args, stdin, stdout, stderr)
	return true, err
}

package tokens

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// ErrUsage: a token command line is wrong.
var ErrUsage = errors.New("tokens: usage")

// Command is one of "mnemobank token create|list|revoke", its flags added
// to the host's flag set (which holds the flags saying where the store is).
type Command struct {
	sub     string
	name    *string
	scope   *string
	expires *string
}

// Subcommands are the token commands.
var Subcommands = []string{"create", "list", "revoke"}

// NewCommand adds the flags of the token command sub to fs.
func NewCommand(sub string, fs *flag.FlagSet) (*Command, error) {
	c := &Command{sub: sub}
	switch sub {
	case "create":
		c.name = fs.String("name", "", "the token's name: the person or agent it is for, recorded as the actor of its writes (required)")
		c.scope = fs.String("scope", "write", "what it may do: read (read, search, list), write (adds writes, deletes, plans, reverting its own writes) or admin (adds reverting anyone's writes)")
		c.expires = fs.String("expires", "never", "how long it lives: Nd days (90d), a Go duration (12h), or never")
	case "list", "revoke":
	default:
		return nil, fmt.Errorf("%w: %q is not a token command; the token commands are %s", ErrUsage, sub, strings.Join(Subcommands, ", "))
	}
	return c, nil
}

// ParseExpiry reads --expires: "never" (or "" or "0"), Nd days, or a Go
// duration; it must be positive.
func ParseExpiry(s string) (time.Duration, error) {
	switch s {
	case "", "0", "never":
		return 0, nil
	}
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days <= 0 || days > 100*365 {
			return 0, fmt.Errorf("%w: --expires %q: give a number of days from 1 to 36500 such as 90d, a duration such as 12h, or never", ErrUsage, s)
		}
		d = time.Duration(days) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d <= 0 {
			return 0, fmt.Errorf("%w: --expires %q: give a number of days such as 90d, a duration such as 12h, or never", ErrUsage, s)
		}
	}
	return d, nil
}

// Run runs the command over st with the arguments left after the flags.
func (c *Command) Run(ctx context.Context, st Store, args []string, now time.Time, stdout io.Writer) error {
	switch c.sub {
	case "create":
		if len(args) > 0 {
			return fmt.Errorf("%w: unexpected argument %q; give the name with --name", ErrUsage, args[0])
		}
		if *c.name == "" {
			return fmt.Errorf("%w: token create needs --name NAME (the person or agent, such as alice)", ErrUsage)
		}
		scope, err := ParseScope(*c.scope)
		if err != nil {
			return fmt.Errorf("%w: --scope: %v", ErrUsage, err)
		}
		ttl, err := ParseExpiry(*c.expires)
		if err != nil {
			return err
		}
		text, t, err := New(ctx, st, *c.name, scope, ttl, now)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, text)
		exp := "never expires"
		if !t.Expires.IsZero() {
			exp = "expires " + t.Expires.Format(time.RFC3339)
		}
		fmt.Fprintf(stdout, "# token %q, scope %s, %s. It is shown only this once: the server keeps only its hash.\n# Clients send it as: Authorization: Bearer <token>\n", t.Name, t.Scope, exp)
		return nil
	case "list":
		if len(args) > 0 {
			return fmt.Errorf("%w: token list takes no argument, got %q", ErrUsage, args[0])
		}
		ts, err := st.List(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSCOPE\tCREATED\tLAST USE\tEXPIRES\tSTATE")
		for _, t := range ts {
			state := "active"
			switch {
			case !t.Revoked.IsZero():
				state = "revoked " + t.Revoked.Format(time.RFC3339)
			case !t.Live(now):
				state = "expired"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Scope, t.Created.Format(time.RFC3339), orDash(t.LastUsed, "never"), orDash(t.Expires, "never"), state)
		}
		return tw.Flush()
	default: // revoke
		if len(args) != 1 {
			return fmt.Errorf("%w: token revoke takes one NAME, got %d arguments", ErrUsage, len(args))
		}
		if err := st.Revoke(ctx, args[0], now); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked %q: every server refuses it within %s\n", args[0], DefaultCacheTTL)
		return nil
	}
}

func orDash(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.Format(time.RFC3339)
}

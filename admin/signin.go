package admin

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/reclaim-sol/reclaim/backend/pkg/ratelimit"
	"github.com/reclaim-sol/reclaim/backend/service/owner"
)

// Per-client limits of the sign-in and sign-up forms, whatever the emails
// tried, as token buckets per client (clientip.Key) in this process: every
// POST of either form takes from the client's forms bucket before the form
// is read, and a sign-up that passed the form's checks from its accounts
// bucket before the password is hashed. A sign-in's own failures earn
// delays on top (owner.Service.SignIn), and every password hash and check
// waits for the password budget (owner.BusyError).
const (
	formsBurst    = 10
	formsEvery    = 6 * time.Second // 10 a minute once the burst is spent
	accountsBurst = 3
	accountsEvery = time.Minute
)

// authForm is the sign-in and sign-up form as the owner filled it in.
type authForm struct {
	Email       string
	Next        string
	CSRF        string
	Error       string
	AllowSignup bool
}

func (c *console) home(w http.ResponseWriter, r *http.Request) {
	if _, _, err := c.currentSession(r); err == nil {
		http.Redirect(w, r, "/admin/projects", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
}

func (c *console) signInPage(w http.ResponseWriter, r *http.Request) {
	if _, _, err := c.currentSession(r); err == nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther) //nolint:gosec // G710: safeNext lets only a path under /admin/ through
		return
	}
	f := authForm{Next: r.URL.Query().Get("next"), CSRF: c.preSessionToken(w, r), AllowSignup: c.AllowSignup}
	c.render(w, r, http.StatusOK, signInView(page{Title: "Sign in"}, f))
}

// signIn hears the sign-in form. A returning browser (a good device cookie,
// device.go) is limited per cookie rather than per address, and refused
// early only when the devices' lane is busy for its account: its check has
// capacity of its own when the cookie names the account it signs in to
// (owner.Service.SignIn), and otherwise meets the full budget there.
func (c *console) signIn(w http.ResponseWriter, r *http.Request) {
	client := c.clientKey(r)
	device := c.device(r)
	limitKey := client
	if device.ID != "" {
		limitKey = "device:" + device.ID
	}
	if wait, ok := c.allow(r, c.formsLimit, limitKey); !ok {
		f := authForm{CSRF: c.preSessionToken(w, r), AllowSignup: c.AllowSignup, Error: "Too many sign-ins from your network. " + waitMessage(wait)}
		c.retryLater(w, r, http.StatusTooManyRequests, wait, signInView(page{Title: "Sign in"}, f))
		return
	}
	var busy *owner.BusyError
	if errors.As(c.Accounts.PasswordsBusy(device), &busy) {
		f := authForm{CSRF: c.preSessionToken(w, r), AllowSignup: c.AllowSignup, Error: busyMessage(busy.RetryAfter)}
		c.retryLater(w, r, http.StatusServiceUnavailable, busy.RetryAfter, signInView(page{Title: "Sign in"}, f))
		return
	}
	if !c.checkPreSessionToken(w, r) {
		return
	}
	f := authForm{
		Email: strings.TrimSpace(r.PostFormValue("email")), Next: r.PostFormValue("next"),
		CSRF: c.preSessionToken(w, r), AllowSignup: c.AllowSignup,
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	o, err := c.Accounts.SignIn(ctx, f.Email, r.PostFormValue("password"), client, device)
	var throttled *owner.ThrottledError
	switch {
	case errors.As(err, &throttled):
		f.Error = "Too many failed sign-ins. " + waitMessage(throttled.Wait)
		c.retryLater(w, r, http.StatusTooManyRequests, throttled.Wait, signInView(page{Title: "Sign in"}, f))
		return
	case errors.As(err, &busy):
		f.Error = busyMessage(busy.RetryAfter)
		c.retryLater(w, r, http.StatusServiceUnavailable, busy.RetryAfter, signInView(page{Title: "Sign in"}, f))
		return
	case errors.Is(err, owner.ErrBadCredentials):
		f.Error = "The email or the password is incorrect."
		c.render(w, r, http.StatusUnauthorized, signInView(page{Title: "Sign in"}, f))
		return
	case err != nil:
		c.serverError(w, r, err)
		return
	}
	if err := c.startSession(w, r, o.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, safeNext(f.Next), http.StatusSeeOther)
}

// allow takes a token from client's bucket in limit; without one, it
// returns how long to wait.
func (c *console) allow(r *http.Request, limit ratelimit.Limiter, client string) (time.Duration, bool) {
	res, err := limit.Allow(r.Context(), client)
	if err != nil {
		return 0, true // the in-process buckets never fail
	}
	return res.RetryAfter, res.Allowed
}

// retryLater answers with status, Retry-After (wait in whole seconds, at
// least one) and view: the form again, saying how long to wait.
func (c *console) retryLater(w http.ResponseWriter, r *http.Request, status int, wait time.Duration, view templ.Component) {
	w.Header().Set("Retry-After", strconv.Itoa(seconds(wait)))
	c.render(w, r, status, view)
}

// seconds is wait in whole seconds, rounded up, at least one.
func seconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

// waitMessage tells the owner how long to wait.
func waitMessage(wait time.Duration) string {
	if wait > time.Minute {
		return fmt.Sprintf("Wait %d minutes before trying again.", int((wait+time.Minute-1)/time.Minute))
	}
	unit := "seconds"
	if seconds(wait) == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Wait %d %s before trying again.", seconds(wait), unit)
}

// busyMessage tells the owner the console is checking too many passwords
// at once.
func busyMessage(wait time.Duration) string {
	return "The console is busy with other sign-ins right now, and did nothing with this form. " + waitMessage(wait)
}

func (c *console) signUpPage(w http.ResponseWriter, r *http.Request) {
	if !c.AllowSignup {
		c.notFound(w, r)
		return
	}
	f := authForm{CSRF: c.preSessionToken(w, r), AllowSignup: true}
	c.render(w, r, http.StatusOK, signUpView(page{Title: "Create an account"}, f))
}

func (c *console) signUp(w http.ResponseWriter, r *http.Request) {
	if !c.AllowSignup {
		c.notFound(w, r)
		return
	}
	client := c.clientKey(r)
	if wait, ok := c.allow(r, c.formsLimit, client); !ok {
		f := authForm{CSRF: c.preSessionToken(w, r), AllowSignup: true, Error: "Too many sign-ups from your network. " + waitMessage(wait)}
		c.retryLater(w, r, http.StatusTooManyRequests, wait, signUpView(page{Title: "Create an account"}, f))
		return
	}
	var busy *owner.BusyError
	if errors.As(c.Accounts.PasswordsBusy(owner.Device{}), &busy) {
		f := authForm{CSRF: c.preSessionToken(w, r), AllowSignup: true, Error: busyMessage(busy.RetryAfter)}
		c.retryLater(w, r, http.StatusServiceUnavailable, busy.RetryAfter, signUpView(page{Title: "Create an account"}, f))
		return
	}
	if !c.checkPreSessionToken(w, r) {
		return
	}
	f := authForm{Email: strings.TrimSpace(r.PostFormValue("email")), CSRF: c.preSessionToken(w, r), AllowSignup: true}
	password := r.PostFormValue("password")
	reject := func(msg string) {
		f.Error = msg
		c.render(w, r, http.StatusUnprocessableEntity, signUpView(page{Title: "Create an account"}, f))
	}
	if err := owner.ValidateEmail(f.Email); err != nil {
		reject(err.Error())
		return
	}
	if err := owner.ValidatePassword(password); err != nil {
		reject(strings.ToUpper(err.Error()[:1]) + err.Error()[1:] + ".")
		return
	}
	if password != r.PostFormValue("password_confirm") {
		reject("The two passwords differ.")
		return
	}
	if wait, ok := c.allow(r, c.accountsLimit, client); !ok {
		f.Error = "Too many accounts created from your network. " + waitMessage(wait)
		c.retryLater(w, r, http.StatusTooManyRequests, wait, signUpView(page{Title: "Create an account"}, f))
		return
	}
	ctx, cancel := c.dbContext(r)
	o, err := c.Accounts.CreateOwner(ctx, f.Email, password)
	cancel()
	switch {
	case errors.Is(err, owner.ErrConflict):
		reject("An account with this email exists already. Sign in instead.")
		return
	case errors.As(err, &busy):
		f.Error = busyMessage(busy.RetryAfter)
		c.retryLater(w, r, http.StatusServiceUnavailable, busy.RetryAfter, signUpView(page{Title: "Create an account"}, f))
		return
	}
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	if err := c.startSession(w, r, o.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, "/admin/projects", http.StatusSeeOther)
}

func (c *console) signOut(w http.ResponseWriter, r *http.Request, rq *request) {
	ctx, cancel := c.dbContext(r)
	defer cancel()
	if err := c.Sessions.EndSession(ctx, rq.session); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
}

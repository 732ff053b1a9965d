package admin

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/reclaim-sol/reclaim/backend/owner"
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
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return
	}
	f := authForm{Next: r.URL.Query().Get("next"), CSRF: c.preSessionToken(w, r), AllowSignup: c.AllowSignup}
	c.render(w, r, http.StatusOK, signInView(page{Title: "Sign in"}, f))
}

func (c *console) signIn(w http.ResponseWriter, r *http.Request) {
	if !c.checkPreSessionToken(w, r) {
		return
	}
	f := authForm{
		Email: strings.TrimSpace(r.PostFormValue("email")), Next: r.PostFormValue("next"),
		CSRF: c.preSessionToken(w, r), AllowSignup: c.AllowSignup,
	}
	ctx, cancel := c.dbContext(r)
	defer cancel()
	o, err := c.Accounts.SignIn(ctx, f.Email, r.PostFormValue("password"), clientIP(r))
	var throttled *owner.ThrottledError
	switch {
	case errors.As(err, &throttled):
		w.Header().Set("Retry-After", strconv.Itoa(int((throttled.Wait+time.Second-1)/time.Second)))
		f.Error = throttleMessage(throttled.Wait)
		c.render(w, r, http.StatusTooManyRequests, signInView(page{Title: "Sign in"}, f))
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

// throttleMessage tells the owner how long to wait.
func throttleMessage(wait time.Duration) string {
	if wait > time.Minute {
		return fmt.Sprintf("Too many failed sign-ins. This account is locked on this network for %d minutes; try again later.",
			int((wait+time.Minute-1)/time.Minute))
	}
	secs := int((wait + time.Second - 1) / time.Second)
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Too many failed sign-ins. Wait %d %s before trying again.", secs, unit)
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
	ctx, cancel := c.dbContext(r)
	o, err := c.Accounts.CreateOwner(ctx, f.Email, password)
	cancel()
	if errors.Is(err, owner.ErrConflict) {
		reject("An account with this email exists already. Sign in instead.")
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

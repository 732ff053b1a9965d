package admin

import (
	"errors"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"sync"

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
	if _, err := c.currentSession(r); err == nil {
		http.Redirect(w, r, "/admin/projects", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
}

func (c *console) signInPage(w http.ResponseWriter, r *http.Request) {
	if _, err := c.currentSession(r); err == nil {
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
	password := r.PostFormValue("password")
	ctx, cancel := c.dbContext(r)
	defer cancel()
	key := throttleKey(f.Email, clientIP(r))
	fails, err := c.Store.SignInFailures(ctx, key)
	if err != nil {
		c.serverError(w, r, err)
		return
	}
	now := c.Now()
	if stale(fails, now) {
		if err := c.Store.ClearSignInFailures(ctx, key); err != nil {
			c.serverError(w, r, err)
			return
		}
		fails = owner.SignInFailures{}
	}
	if wait := retryAfter(fails, now); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int((wait+999_999_999)/1_000_000_000)))
		f.Error = throttleMessage(wait)
		c.render(w, r, http.StatusTooManyRequests, signInView(page{Title: "Sign in"}, f))
		return
	}
	o, err := c.Store.OwnerByEmail(ctx, f.Email)
	if err != nil && !errors.Is(err, owner.ErrNotFound) {
		c.serverError(w, r, err)
		return
	}
	hash := o.PasswordHash
	if hash == "" {
		hash = c.dummyHash() // the same work whether or not the email exists
	}
	ok, _ := Check(hash, password)
	if !ok || o.ID == "" {
		if _, err := c.Store.RecordSignInFailure(ctx, key, now); err != nil {
			c.serverError(w, r, err)
			return
		}
		f.Error = "The email or the password is incorrect."
		c.render(w, r, http.StatusUnauthorized, signInView(page{Title: "Sign in"}, f))
		return
	}
	if err := c.Store.ClearSignInFailures(ctx, key); err != nil {
		c.serverError(w, r, err)
		return
	}
	if err := c.startSession(w, r, o.ID); err != nil {
		c.serverError(w, r, err)
		return
	}
	http.Redirect(w, r, safeNext(f.Next), http.StatusSeeOther)
}

var (
	dummyOnce sync.Once
	dummy     string
)

// dummyHash is a hash no password matches, checked for unknown emails.
func (c *console) dummyHash() string {
	dummyOnce.Do(func() { dummy, _ = c.Passwords.Hash(randomToken()) })
	return dummy
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
	if err := ValidateEmail(f.Email); err != nil {
		reject(err.Error())
		return
	}
	if err := ValidatePassword(password); err != nil {
		reject(strings.ToUpper(err.Error()[:1]) + err.Error()[1:] + ".")
		return
	}
	if password != r.PostFormValue("password_confirm") {
		reject("The two passwords differ.")
		return
	}
	o, err := CreateOwner(r.Context(), c.Store, c.Passwords, f.Email, password)
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
	if err := c.Store.DeleteSession(ctx, rq.session.IDHash); err != nil {
		c.serverError(w, r, err)
		return
	}
	c.setCookie(w, r, sessionCookie, "", -1)
	http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
}

// ValidateEmail checks that email is a plain address (no display name).
func ValidateEmail(email string) error {
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return errors.New("Enter an email address such as name@example.com.")
	}
	return nil
}

func normalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

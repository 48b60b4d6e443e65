/**
 * The pages' templates (Eta, which escapes every `<%= %>` by default). Raw output (`<%~ %>`) is used only
 * for the layout's body slot (another template's escaped output) and for bodies the core's one sanitizer
 * made (`html` fields). Every text comes from `it.t` (i18n.ts); plain HTML forms that work without
 * JavaScript, each field labelled, each refusal beside its field.
 */
import { Eta } from "eta"

const eta = new Eta({ autoEscape: true, autoTrim: false })

/** A form's hidden CSRF field. */
const CSRF = `<input type="hidden" name="csrf" value="<%= it.csrf %>">`
/** A field's message (a 422), tied to the field by aria-describedby. */
/** The identity provider's button (decisions §10), where a page offers it: a form, so that starting is CSRF-checked. */
const PROVIDER = `<% if (it.sso) { %><form method="post" action="/auth/oidc">${CSRF}<% if (it.next) { %><input type="hidden" name="next" value="<%= it.next %>"><% } %><% if (it.invitation) { %><input type="hidden" name="invitation" value="<%= it.invitation %>"><% } %>
<p><button type="submit"><%= it.t("sso.withProvider", { name: it.sso.name }) %></button></p></form><% } %>`
/** The three volume buttons (decisions §11): the current one pressed; `action` is where the form posts. */
const VOLUME = (action: string, title: string) => `<section aria-labelledby="volume-title"><h2 id="volume-title"><%= it.t("${title}") %></h2>
<form method="post" action="${action}" class="volume">${CSRF}<% if (it.volumeNext) { %><input type="hidden" name="next" value="<%= it.volumeNext %>"><% } %>
<% for (const v of ["mute", "normal", "loud"]) { %><button type="submit" name="volume" value="<%= v %>" aria-pressed="<%= it.volume === v ? "true" : "false" %>"><%= it.t("volume." + v) %></button> <% } %>
</form><p class="hint"><%= it.t("volume.help." + it.volume) %></p></section>`
const ERR = (field: string) => `<% if (it.errors && it.errors.${field}) { %><p class="error" id="${field}-error"><%= it.errors.${field} %></p><% } %>`
const DESCRIBED = (field: string) => `<%~ it.errors && it.errors.${field} ? ' aria-invalid="true" aria-describedby="${field}-error"' : '' %>`

eta.loadTemplate("@layout", `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · convene</title>
<link rel="stylesheet" href="/assets/convene.css">
</head>
<body>
<a class="skip" href="#main"><%= it.t("layout.skip") %></a>
<header>
<nav aria-label="<%= it.t("layout.nav") %>">
<a href="/" class="brand">convene</a>
<% if (it.signedIn) { %><a href="/profile"><%= it.t("layout.profile") %></a>
<form method="post" action="/sign-out" class="inline">${CSRF}<button type="submit" class="link"><%= it.t("layout.signOut") %></button></form>
<% } else { %><a href="/sign-in"><%= it.t("layout.signIn") %></a><% } %>
</nav>
</header>
<main id="main">
<% if (it.crumbs && it.crumbs.length > 0) { %><nav aria-label="<%= it.t("layout.crumbs") %>" class="crumbs"><% for (const c of it.crumbs) { %><a href="<%= c.href %>"><%= c.label %></a> › <% } %></nav><% } %>
<h1><%= it.title %></h1>
<% if (it.notice) { %><p role="status" class="notice"><%= it.notice %></p><% } %>
<%~ it.body %>
</main>
<footer><p><%= it.t("layout.zone", { zone: it.zone }) %></p></footer>
</body>
</html>
`)

eta.loadTemplate("@message", `<p><%= it.text %></p>
<% if (it.link) { %><p><a href="<%= it.link.href %>"><%= it.link.label %></a></p><% } %>
`)

// Home

eta.loadTemplate("@home", `<% if (!it.signedIn) { %>
<p><%= it.t("home.about") %></p>
<p><a class="button" href="/sign-in"><%= it.t("layout.signIn") %></a></p>
<% } else { %>
<h2><%= it.t("home.waiting") %></h2>
<% if (it.waiting.length === 0) { %><p><%= it.t("home.waitingNone") %></p><% } else { %><ul><% for (const p of it.waiting) { %><li><a href="/p/<%= p.key %>"><%= p.title %></a> · <%= it.t("poll.closesAt", { time: p.closes }) %></li><% } %></ul><% } %>
<h2><%= it.t("home.groups") %></h2>
<% if (it.groups.length === 0) { %><p><%= it.t("home.groupsNone") %></p><% } else { %><ul><% for (const g of it.groups) { %><li><a href="/g/<%= g.key %>"><%= g.name %></a></li><% } %></ul><% } %>
<h2><%= it.t("home.threads") %></h2>
<% if (it.threads.length === 0) { %><p><%= it.t("home.threadsNone") %></p><% } else { %><ul><% for (const d of it.threads) { %><li><a href="<%= d.href %>"><%= d.title %></a> · <%= it.t("home.active", { time: d.active }) %></li><% } %></ul><% } %>
<% } %>
`)

// Invitations, sign-in and the API access page (decisions §5)

eta.loadTemplate("@invitation", `<p><%= it.where %></p>
<% if (it.message) { %><blockquote><%= it.message %></blockquote><% } %>
<% if (it.holder === "SignInFirst") { %><p><%= it.t("invitation.signInFirst", { email: it.email }) %></p>
${PROVIDER}
<% if (!it.sso || !it.sso.only) { %><p><a class="button" href="/sign-in?next=<%= encodeURIComponent("/invitations/" + it.token) %>"><%= it.t("invitation.signInToAccept") %></a></p><% } %>
<% } else if (it.holder === "WrongPerson") { %><p><%= it.t("invitation.wrongPerson", { email: it.email, name: it.me }) %></p>
<div class="actions"><form method="post" action="/sign-out" class="inline">${CSRF}<input type="hidden" name="next" value="/invitations/<%= it.token %>"><button type="submit"><%= it.t("invitation.switch") %></button></form>
<a href="/"><%= it.t("invitation.decline") %></a></div>
<% } else { %><% if (it.me) { %><p><%= it.t("invitation.otherSignedIn", { email: it.email, name: it.me }) %></p><% } %>
<% if (it.holder === "NewPerson") { %>${PROVIDER}<% } %>
<% if (it.holder !== "NewPerson" || !it.sso || !it.sso.only) { %><form method="post" action="/invitations/<%= it.token %>">
${CSRF}
<% if (it.askName) { %><p><label for="name"><%= it.t("invitation.yourName") %></label><br><input id="name" name="name" required maxlength="100" autocomplete="name"${DESCRIBED("name")}></p>${ERR("name")}<% } %>
<p><button type="submit"><%= it.t("invitation.accept") %></button></p>
</form><% } %><% } %>
`)

eta.loadTemplate("@sign-in", `${PROVIDER}
<% if (!it.sso || !it.sso.only) { %><% if (it.sso) { %><p><%= it.t("sso.orByMail") %></p><% } %>
<form method="post" action="/sign-in">
${CSRF}
<% if (it.next) { %><input type="hidden" name="next" value="<%= it.next %>"><% } %>
<p><label for="email"><%= it.t("signIn.email") %></label><br><input id="email" name="email" type="email" required autocomplete="email" value="<%= it.email %>"${DESCRIBED("email")}></p>
${ERR("email")}
<p><button type="submit"><%= it.t("signIn.send") %></button></p>
</form><% } %>
`)

eta.loadTemplate("@sso-only", `<p><%= it.t("sso.only", { name: it.sso.name }) %></p>
${PROVIDER}
`)

eta.loadTemplate("@sign-in-code", `<p><%= it.t("signIn.sent", { email: it.email }) %></p>
<form method="post" action="/sign-in/code">
${CSRF}
<input type="hidden" name="email" value="<%= it.email %>">
<% if (it.next) { %><input type="hidden" name="next" value="<%= it.next %>"><% } %>
<p><label for="code"><%= it.t("signIn.code") %></label><br><input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" required autocomplete="one-time-code"${DESCRIBED("code")}></p>
${ERR("code")}
<p><button type="submit"><%= it.t("signIn.submit") %></button></p>
</form>
<p><a href="/sign-in"><%= it.t("signIn.another") %></a></p>
`)

eta.loadTemplate("@sign-in-link", `<form method="post" action="/sign-in/link/<%= it.token %>">
${CSRF}
<p><button type="submit"><%= it.t("signIn.submit") %></button></p>
</form>
`)

eta.loadTemplate("@api-access", `<p><%~ it.t("apiAccess.signedInAs", { name: it.esc(it.name), email: it.esc(it.email) }) %></p>
<h2><%= it.t("apiAccess.key") %></h2>
<% if (it.newKey) { %><p role="status"><%= it.t("apiAccess.newKey") %></p>
<p><code id="api-key"><%= it.newKey %></code></p><% } else { %><p><%= it.t("apiAccess.hashed") %></p><% } %>
<form method="post" action="/profile/api_access">
${CSRF}
<p><button type="submit"><%= it.t("apiAccess.generate") %></button></p>
</form>
<h2><%= it.t("apiAccess.using") %></h2>
<p><%= it.t("apiAccess.base") %> <code><%= it.apiBase %></code></p>
<pre><code>curl -H "Authorization: Bearer <%= it.newKey || "YOUR_API_KEY" %>" <%= it.apiBase %>/groups</code></pre>
<h2><%= it.t("home.groups") %></h2>
<% if (it.groups.length === 0) { %><p><%= it.t("home.groupsNone") %></p><% } else { %>
<table><thead><tr><th scope="col">id</th><th scope="col">key</th><th scope="col"><%= it.t("apiAccess.name") %></th></tr></thead><tbody>
<% for (const g of it.groups) { %><tr><td><%= g.id %></td><td><code><%= g.key %></code></td><td><%= g.name %></td></tr><% } %>
</tbody></table><% } %>
`)

eta.loadTemplate("@unsubscribe", `<% if (it.muted) { %><p><%~ it.t("unsubscribe.done", { group: it.esc(it.group) }) %></p>
<% } else { %><p><%~ it.t("unsubscribe.ask", { group: it.esc(it.group) }) %></p>
<form method="post" action="/unsubscribe/<%= it.token %>">
<p><button type="submit"><%= it.t("unsubscribe.button") %></button></p>
</form><% } %>
`)

// Profile

eta.loadTemplate("@profile", `<form method="post" action="/profile">
${CSRF}
<p><label for="name"><%= it.t("profile.name") %></label><br><input id="name" name="name" required maxlength="100" autocomplete="name" value="<%= it.form.name %>"${DESCRIBED("name")}></p>
${ERR("name")}
<p><label for="time_zone"><%= it.t("profile.timeZone") %></label><br><input id="time_zone" name="time_zone" list="zones" autocomplete="off" value="<%= it.form.time_zone %>" aria-describedby="time_zone-hint"${DESCRIBED("time_zone")}>
<datalist id="zones"><% for (const z of it.zones) { %><option value="<%= z %>"></option><% } %></datalist></p>
<p class="hint" id="time_zone-hint"><%= it.t("profile.timeZoneHint", { zone: it.serverZone }) %></p>
${ERR("time_zone")}
<p><label for="locale"><%= it.t("profile.language") %></label><br><select id="locale" name="locale">
<option value=""<%= it.form.locale === "" ? " selected" : "" %>><%= it.t("profile.languageBrowser") %></option>
<% for (const l of it.locales) { %><option value="<%= l.code %>" lang="<%= l.code %>"<%= it.form.locale === l.code ? " selected" : "" %>><%= l.name %></option><% } %>
</select></p>
${ERR("locale")}
<p><label for="catch_up"><%= it.t("profile.catchUp") %></label><br><select id="catch_up" name="catch_up" aria-describedby="catch_up-hint">
<% for (const c of ["", "daily", "every_other_day", "weekly"]) { %><option value="<%= c %>"<%= it.form.catch_up === c ? " selected" : "" %>><%= it.t("catchUp." + (c || "off")) %></option><% } %>
</select></p>
<p class="hint" id="catch_up-hint"><%= it.t("profile.catchUpHint") %></p>
${ERR("catch_up")}
<p><button type="submit"><%= it.t("profile.save") %></button></p>
</form>
<% if (it.groups.length > 0) { %><h2><%= it.t("profile.mail") %></h2>
<% for (const g of it.groups) { %><section aria-labelledby="volume-<%= g.key %>"><h3 id="volume-<%= g.key %>"><%= it.t("volume.of", { group: g.name }) %></h3>
<form method="post" action="/g/<%= g.key %>/volume" class="volume">${CSRF}<input type="hidden" name="next" value="/profile">
<% for (const v of ["mute", "normal", "loud"]) { %><button type="submit" name="volume" value="<%= v %>" aria-pressed="<%= g.volume === v ? "true" : "false" %>"><%= it.t("volume." + v) %><span class="visually-hidden"> · <%= g.name %></span></button> <% } %>
</form></section><% } %>
<p class="hint"><%= it.t("volume.help.mute") %> <%= it.t("volume.help.normal") %> <%= it.t("volume.help.loud") %></p><% } %>
<p><a href="/profile/api_access"><%= it.t("profile.apiAccess") %></a></p>
`)

// Groups

eta.loadTemplate("@group", `<% if (it.parent) { %><p><%= it.t("group.subgroupOf") %> <a href="/g/<%= it.parent.key %>"><%= it.parent.name %></a></p><% } %>
<% if (it.descriptionHtml) { %><div class="body"><%~ it.descriptionHtml %></div><% } %>
<% if (it.may.discuss || it.may.poll || it.may.invite || it.may.members) { %><ul class="actions">
<% if (it.may.discuss) { %><li><a class="button" href="/g/<%= it.key %>/discussions/new"><%= it.t("group.startDiscussion") %></a></li><% } %>
<% if (it.may.poll) { %><li><a class="button" href="/g/<%= it.key %>/polls/new"><%= it.t("group.startPoll") %></a></li><% } %>
<% if (it.may.invite) { %><li><a class="button" href="/g/<%= it.key %>/invite"><%= it.t("group.invite") %></a></li><% } %>
<% if (it.may.members) { %><li><a href="/g/<%= it.key %>/members"><%= it.t("group.members", { count: it.membersCount }) %></a></li><% } %>
</ul><% } %>
<h2><%= it.t("group.openThreads") %></h2>
<% if (it.open.length === 0) { %><p><%= it.t("group.none") %></p><% } else { %><ul><% for (const d of it.open) { %><li><a href="/d/<%= d.key %>"><%= d.title %></a></li><% } %></ul><% } %>
<% if (it.closed.length > 0) { %><h2><%= it.t("group.closedThreads") %></h2><ul><% for (const d of it.closed) { %><li><a href="/d/<%= d.key %>"><%= d.title %></a></li><% } %></ul><% } %>
<h2><%= it.t("group.polls") %></h2>
<% if (it.polls.length === 0) { %><p><%= it.t("group.none") %></p><% } else { %><ul><% for (const p of it.polls) { %><li><a href="/p/<%= p.key %>"><%= p.title %></a> · <%= p.state %></li><% } %></ul><% } %>
<% if (it.subgroups.length > 0) { %><h2><%= it.t("group.subgroups") %></h2><ul><% for (const g of it.subgroups) { %><li><a href="/g/<%= g.key %>"><%= g.name %></a></li><% } %></ul><% } %>
<% if (it.volume) { %>${VOLUME("/g/<%= it.key %>/volume", "volume.groupTitle")}<% } %>
`)

eta.loadTemplate("@members", `<table><caption class="visually-hidden"><%= it.t("members.caption") %></caption>
<thead><tr><th scope="col"><%= it.t("apiAccess.name") %></th><th scope="col"><%= it.t("members.role") %></th><% if (it.manage) { %><th scope="col"><%= it.t("members.actions") %></th><% } %></tr></thead><tbody>
<% for (const m of it.members) { %><tr><td><%= m.name %></td><td><%= m.marks %></td><% if (it.manage) { %><td>
<% if (!m.admin) { %><form method="post" action="/g/<%= it.key %>/members/<%= m.id %>/admin" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t("members.makeAdminOf", { name: m.name }) %>"><%= it.t("members.makeAdmin") %></button></form><% } %>
<% if (!m.self) { %><form method="post" action="/g/<%= it.key %>/members/<%= m.id %>/remove" class="inline">${CSRF}<button type="submit" class="danger" aria-label="<%= it.t("members.removeOf", { name: m.name }) %>"><%= it.t("members.remove") %></button></form><% } %>
</td><% } %></tr><% } %>
</tbody></table>
`)

eta.loadTemplate("@invite", `<form method="post" action="/g/<%= it.key %>/invite">
${CSRF}
<p><label for="emails"><%= it.t("invite.emails") %></label><br><textarea id="emails" name="emails" rows="4" required aria-describedby="emails-hint<%= it.errors && it.errors.emails ? " emails-error" : "" %>"<%= it.errors && it.errors.emails ? " aria-invalid=true" : "" %>><%= it.form.emails %></textarea></p>
<p class="hint" id="emails-hint"><%= it.t("invite.emailsHint") %></p>
${ERR("emails")}
<p><label for="message"><%= it.t("invite.message") %></label><br><textarea id="message" name="message" rows="4"${DESCRIBED("message")}><%= it.form.message %></textarea></p>
${ERR("message")}
<p><button type="submit"><%= it.t("invite.send") %></button></p>
</form>
`)

// Threads

eta.loadTemplate("@new-discussion", `<form method="post" action="/g/<%= it.key %>/discussions/new">
${CSRF}
<p><label for="title"><%= it.t("discussion.title") %></label><br><input id="title" name="title" required maxlength="250" value="<%= it.form.title %>"${DESCRIBED("title")}></p>
${ERR("title")}
<p><label for="description"><%= it.t("discussion.details") %></label><br><textarea id="description" name="description" rows="6" aria-describedby="markdown-hint"><%= it.form.description %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
<% if (it.privacyChoice) { %><fieldset><legend><%= it.t("discussion.privacy") %></legend>
<p><input type="radio" id="private-1" name="private" value="1"<%= it.form.private !== "0" ? " checked" : "" %>> <label for="private-1"><%= it.t("discussion.private") %></label></p>
<p><input type="radio" id="private-0" name="private" value="0"<%= it.form.private === "0" ? " checked" : "" %>> <label for="private-0"><%= it.t("discussion.public") %></label></p>
</fieldset>${ERR("private")}<% } %>
<p><button type="submit"><%= it.t("discussion.start") %></button></p>
</form>
`)

const COMMENT_FORM = (action: string, id: string, button: string) => `<form method="post" action="${action}" class="comment-form">
${CSRF}
<p><label for="${id}"><%= it.t("comment.field") %></label><br><textarea id="${id}" name="body" rows="3" required></textarea></p>
<p><button type="submit">${button}</button></p>
</form>`

eta.loadTemplate("@thread", `<p class="meta"><%= it.t("thread.started", { name: it.author, time: it.started }) %><% if (it.closed) { %> · <strong><%= it.t("thread.closed", { time: it.closed }) %></strong><% } %></p>
<% if (it.descriptionHtml) { %><div class="body"><%~ it.descriptionHtml %></div><% } %>
<% if (it.may.close || it.may.reopen || it.may.poll) { %><div class="actions">
<% if (it.may.poll) { %><a class="button" href="/d/<%= it.key %>/polls/new"><%= it.t("group.startPoll") %></a><% } %>
<% if (it.may.close) { %><form method="post" action="/d/<%= it.key %>/close" class="inline">${CSRF}<button type="submit"><%= it.t("thread.close") %></button></form><% } %>
<% if (it.may.reopen) { %><form method="post" action="/d/<%= it.key %>/reopen" class="inline">${CSRF}<button type="submit"><%= it.t("thread.reopen") %></button></form><% } %>
</div><% } %>
<h2><%= it.t("thread.activity") %></h2>
<% if (it.items.length === 0) { %><p><%= it.t("thread.nothingYet") %></p><% } %>
<ol class="items">
<% for (const item of it.items) { %><li class="item item-<%= item.kind %>" id="<%= item.anchor %>">
<% if (item.kind === "comment") { %><%~ include("@comment", { ...it, c: item }) %>
<% } else if (item.kind === "poll") { %><article><h3><a href="/p/<%= item.key %>"><%= item.title %></a></h3><p><%= item.summary %></p></article>
<% } else { %><p class="meta"><%= item.text %></p><% if (item.html) { %><div class="body"><%~ item.html %></div><% } %><% } %>
</li><% } %>
</ol>
<% if (it.may.comment) { %><h2><%= it.t("comment.add") %></h2>
${COMMENT_FORM("/d/<%= it.key %>/comments", "comment", "<%= it.t(\"comment.post\") %>")}<% } %>
<% if (it.volume) { %>${VOLUME("/d/<%= it.key %>/volume", "volume.threadTitle")}<% } %>
`)

eta.loadTemplate("@comment", `<article aria-labelledby="c<%= it.c.id %>-by">
<p class="meta" id="c<%= it.c.id %>-by"><strong><%= it.c.author %></strong> · <%= it.c.time %><% if (it.c.edited) { %> · <%= it.t("comment.edited") %><% } %></p>
<div class="body"><%~ it.c.html %></div>
<% if (it.c.mayEdit || it.c.mayDelete) { %><div class="actions comment-actions">
<% if (it.c.mayEdit) { %><a href="/d/<%= it.key %>/comments/<%= it.c.id %>/edit" aria-label="<%= it.t("comment.editOf", { name: it.c.author }) %>"><%= it.t("comment.edit") %></a><% } %>
<% if (it.c.mayDelete) { %><form method="post" action="/d/<%= it.key %>/comments/<%= it.c.id %>/delete" class="inline">${CSRF}<button type="submit" class="link danger" aria-label="<%= it.t("comment.deleteOf", { name: it.c.author }) %>"><%= it.t("comment.delete") %></button></form><% } %>
</div><% } %>
<% if (it.c.replies.length > 0) { %><ol class="replies"><% for (const r of it.c.replies) { %><li id="comment-<%= r.id %>"><%~ include("@comment", { ...it, c: r }) %></li><% } %></ol><% } %>
<% if (it.may.comment && it.c.depth === 0) { %><details><summary><%= it.t("comment.reply") %><span class="visually-hidden"> <%= it.t("comment.toName", { name: it.c.author }) %></span></summary>
<form method="post" action="/d/<%= it.key %>/comments" class="comment-form">
${CSRF}
<input type="hidden" name="parent_id" value="<%= it.c.id %>">
<p><label for="reply-<%= it.c.id %>"><%= it.t("comment.field") %></label><br><textarea id="reply-<%= it.c.id %>" name="body" rows="3" required></textarea></p>
<p><button type="submit"><%= it.t("comment.post") %></button></p>
</form></details><% } %>
</article>
`)

eta.loadTemplate("@edit-comment", `<form method="post" action="/d/<%= it.key %>/comments/<%= it.id %>/edit">
${CSRF}
<p><label for="body"><%= it.t("comment.field") %></label><br><textarea id="body" name="body" rows="6" required${DESCRIBED("body")}><%= it.form.body %></textarea></p>
${ERR("body")}
<p><button type="submit"><%= it.t("comment.save") %></button></p>
</form>
<p><a href="/d/<%= it.key %>"><%= it.t("form.cancel") %></a></p>
`)

// Polls

eta.loadTemplate("@new-poll", `<form method="post" action="<%= it.action %>">
${CSRF}
<p><label for="poll_type"><%= it.t("poll.type") %></label><br><select id="poll_type" name="poll_type">
<% for (const type of it.types) { %><option value="<%= type %>"<%= it.form.poll_type === type ? " selected" : "" %>><%= it.t("pollType." + type) %></option><% } %>
</select></p>
${ERR("poll_type")}
<p><label for="title"><%= it.t("discussion.title") %></label><br><input id="title" name="title" required maxlength="250" value="<%= it.form.title %>"${DESCRIBED("title")}></p>
${ERR("title")}
<p><label for="details"><%= it.t("discussion.details") %></label><br><textarea id="details" name="details" rows="4" aria-describedby="markdown-hint"><%= it.form.details %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
<p><label for="options"><%= it.t("poll.options") %></label><br><textarea id="options" name="options" rows="5" aria-describedby="options-hint<%= it.errors && it.errors.options ? " options-error" : "" %>"<%= it.errors && it.errors.options ? " aria-invalid=true" : "" %>><%= it.form.options %></textarea></p>
<p class="hint" id="options-hint"><%= it.t("poll.optionsHint", { zone: it.zone }) %></p>
${ERR("options")}
<p><label for="closing_at"><%= it.t("poll.closingDate") %></label><br><input id="closing_at" name="closing_at" type="datetime-local" required value="<%= it.form.closing_at %>" aria-describedby="closing-hint<%= it.errors && it.errors.closing_at ? " closing_at-error" : "" %>"<%= it.errors && it.errors.closing_at ? " aria-invalid=true" : "" %>></p>
<p class="hint" id="closing-hint"><%= it.t("poll.inZone", { zone: it.zone }) %></p>
${ERR("closing_at")}
<fieldset><legend><%= it.t("poll.settings") %></legend>
<p><input type="checkbox" id="anonymous" name="anonymous" value="1"<%= it.form.anonymous ? " checked" : "" %>> <label for="anonymous"><%= it.t("poll.anonymous") %></label></p>
${ERR("anonymous")}
<p><label for="hide_results"><%= it.t("poll.hideResults") %></label><br><select id="hide_results" name="hide_results">
<% for (const h of ["off", "until_vote", "until_closed"]) { %><option value="<%= h %>"<%= it.form.hide_results === h ? " selected" : "" %>><%= it.t("poll.hide." + h) %></option><% } %>
</select></p>
${ERR("hide_results")}
<p><label for="minimum_stance_choices"><%= it.t("poll.minChoices") %></label><br><input id="minimum_stance_choices" name="minimum_stance_choices" type="number" min="0" max="1000" inputmode="numeric" value="<%= it.form.minimum_stance_choices %>"></p>
<p><label for="maximum_stance_choices"><%= it.t("poll.maxChoices") %></label><br><input id="maximum_stance_choices" name="maximum_stance_choices" type="number" min="0" max="1000" inputmode="numeric" value="<%= it.form.maximum_stance_choices %>"${DESCRIBED("maximum_stance_choices")}></p>
${ERR("maximum_stance_choices")}
<p><label for="min_score"><%= it.t("poll.minScore") %></label><br><input id="min_score" name="min_score" type="number" min="0" max="1000" inputmode="numeric" value="<%= it.form.min_score %>"></p>
<p><label for="max_score"><%= it.t("poll.maxScore") %></label><br><input id="max_score" name="max_score" type="number" min="0" max="1000" inputmode="numeric" value="<%= it.form.max_score %>"${DESCRIBED("max_score")}></p>
${ERR("max_score")}
<p><label for="dots_per_person"><%= it.t("poll.dots") %></label><br><input id="dots_per_person" name="dots_per_person" type="number" min="1" max="1000" inputmode="numeric" value="<%= it.form.dots_per_person %>"${DESCRIBED("dots_per_person")}></p>
${ERR("dots_per_person")}
</fieldset>
<p><button type="submit"><%= it.t("poll.start") %></button></p>
</form>
`)

eta.loadTemplate("@poll", `<p class="meta"><%= it.type %> · <%= it.state %></p>
<% if (it.detailsHtml) { %><div class="body"><%~ it.detailsHtml %></div><% } %>
<p><%= it.t("poll.voted", { cast: it.cast, voters: it.voters }) %></p>
<% if (it.outcome) { %><section class="outcome" aria-labelledby="outcome-h"><h2 id="outcome-h"><%= it.t("poll.outcome") %></h2><p class="meta"><%= it.outcome.by %></p><div class="body"><%~ it.outcome.html %></div></section><% } %>
<% if (it.vote) { %>
<form method="post" action="/p/<%= it.key %>/vote" novalidate>
${CSRF}
<fieldset><legend><%= it.vote.mine ? it.t("poll.changeYourVote") : it.t("poll.yourVote") %></legend>
<% if (it.errors && it.errors.ballot) { %><p class="error" id="ballot-error" role="alert"><%= it.errors.ballot %></p><% } %>
<% if (it.vote.input === "dots") { %><p id="dots-hint"><%= it.t("poll.dotsLeft", { total: it.vote.dots, left: it.vote.dotsLeft }) %></p><% } %>
<% for (const o of it.vote.options) { %>
<% if (it.vote.input === "radio") { %><p class="choice"><input type="radio" id="o<%= o.id %>" name="choice" value="<%= o.name %>"<%= o.score > 0 ? " checked" : "" %>> <label for="o<%= o.id %>"><%= o.label %></label></p><% } %>
<% if (it.vote.input === "checkbox") { %><p class="choice"><input type="checkbox" id="o<%= o.id %>" name="choice" value="<%= o.name %>"<%= o.score > 0 ? " checked" : "" %>> <label for="o<%= o.id %>"><%= o.label %></label></p><% } %>
<% if (it.vote.input === "score" || it.vote.input === "dots") { %><p class="choice"><label for="o<%= o.id %>"><%= o.label %></label> <input type="number" id="o<%= o.id %>" name="score:<%= o.name %>" min="<%= it.vote.min %>" max="<%= it.vote.max %>" inputmode="numeric" value="<%= o.score %>"<%~ it.vote.input === "dots" ? ' aria-describedby="dots-hint"' : '' %>></p><% } %>
<% if (it.vote.input === "rank") { %><p class="choice"><label for="o<%= o.id %>"><%= o.label %></label> <select id="o<%= o.id %>" name="rank:<%= o.name %>"><% for (let r = 1; r <= it.vote.options.length; r++) { %><option value="<%= r %>"<%= o.rank === r ? " selected" : "" %>><%= it.t("poll.rankN", { rank: r }) %></option><% } %></select></p><% } %>
<% if (it.vote.input === "meeting") { %><fieldset class="slot"><legend><%= o.label %></legend>
<% for (const a of it.vote.answers) { %><span class="choice"><input type="radio" id="o<%= o.id %>-<%= a.score %>" name="score:<%= o.name %>" value="<%= a.score %>"<%= o.score === a.score ? " checked" : "" %>> <label for="o<%= o.id %>-<%= a.score %>"><%= a.label %></label></span> <% } %>
</fieldset><% } %>
<% } %>
</fieldset>
<p><label for="reason"><%= it.t("poll.reason") %></label><br><textarea id="reason" name="reason" rows="3"><%= it.vote.reason %></textarea></p>
<p><button type="submit"><%= it.vote.mine ? it.t("poll.changeVote") : it.t("poll.vote") %></button></p>
</form>
<% } else if (it.voteNote) { %><p><%= it.voteNote %></p><% } %>
<h2 id="results-h"><%= it.t("poll.results") %></h2>
<% if (it.results) { %><div class="table-wrap" role="region" aria-labelledby="results-h" tabindex="0"><table class="results"><caption class="visually-hidden"><%= it.t("poll.results") %></caption>
<thead><tr><th scope="col"><%= it.t("poll.option") %></th><% for (const h of it.results.columns) { %><th scope="col"><%= h %></th><% } %><th scope="col"><%= it.t("poll.share") %></th><% if (it.results.named) { %><th scope="col"><%= it.t("poll.voters") %></th><% } %></tr></thead><tbody>
<% for (const r of it.results.rows) { %><tr><th scope="row"><%= r.label %></th><% for (const v of r.values) { %><td><%= v %></td><% } %><td><span class="pct"><%= r.percentText %></span> <meter min="0" max="100" value="<%= r.percent %>" aria-label="<%= r.label %>: <%= r.percentText %>"></meter></td><% if (it.results.named) { %><td><%= r.voters %></td><% } %></tr><% } %>
</tbody></table></div><% } else { %><p><%= it.hiddenUntil %></p><% } %>
<% if (it.may.close) { %><form method="post" action="/p/<%= it.key %>/close">${CSRF}<p><button type="submit"><%= it.t("poll.close") %></button></p></form><% } %>
<% if (it.may.outcome) { %><h2><%= it.t("poll.shareOutcomeHeading") %></h2>
<form method="post" action="/p/<%= it.key %>/outcome">
${CSRF}
<p><label for="statement"><%= it.t("poll.outcome") %></label><br><textarea id="statement" name="statement" rows="4" required${DESCRIBED("statement")}><%= it.form.statement %></textarea></p>
${ERR("statement")}
<p><button type="submit"><%= it.t("poll.shareOutcome") %></button></p>
</form><% } %>
<% if (it.may.reopen) { %><form method="post" action="/p/<%= it.key %>/reopen">
${CSRF}
<p><label for="closing_at"><%= it.t("poll.closingDate") %></label><br><input id="closing_at" name="closing_at" type="datetime-local" required value="<%= it.form.closing_at %>" aria-describedby="closing-hint<%= it.errors && it.errors.closing_at ? " closing_at-error" : "" %>"></p>
<p class="hint" id="closing-hint"><%= it.t("poll.inZone", { zone: it.zone }) %></p>
${ERR("closing_at")}
<p><button type="submit"><%= it.t("poll.reopen") %></button></p>
</form><% } %>
`)

export const render = (template: string, data: object): string => eta.render(template, data)

export const STYLESHEET = `*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:46rem;margin:0 auto;padding:1rem;line-height:1.5;color:#1d2a35;background:#fff;overflow-wrap:break-word}
td,.body{overflow-wrap:anywhere}
a{color:#1f4f7d}
header nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;border-bottom:1px solid #ccc;padding-bottom:.5rem}
.brand{font-weight:bold;text-decoration:none;margin-right:auto}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:1}
:focus-visible{outline:3px solid #c75000;outline-offset:2px}
form.inline{display:inline}
button,.button{display:inline-block;background:#1f4f7d;color:#fff;border:0;border-radius:4px;padding:.5rem 1rem;min-height:2.75rem;font-size:1rem;cursor:pointer;text-decoration:none;line-height:1.75}
button.link{background:none;color:#1f4f7d;text-decoration:underline;padding:.25rem;min-height:1.5rem}
button.danger{background:#8c1c13}button.link.danger{background:none;color:#8c1c13}
input,select,textarea{font-size:1rem;padding:.4rem;max-width:100%;border:1px solid #666;border-radius:3px}
input[type=email],input[type=datetime-local],input:not([type]),textarea{width:32rem}input[type=number]{width:6rem}
input[type=radio],input[type=checkbox]{width:1.5rem;height:1.5rem;vertical-align:middle;margin:0 .25rem 0 0}
.choice{margin:.4rem 0}.choice label{vertical-align:middle}
.error{color:#a4161a;font-weight:bold;margin-top:-.5rem}
.hint,.meta{color:#4a5560;font-size:.95rem}
.notice{background:#e8f3e8;border-left:4px solid #2e6b30;padding:.5rem}
ul.actions{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}div.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:1rem 0;align-items:center}div.comment-actions{margin:.25rem 0}
ol.items,ol.replies{list-style:none;padding:0}ol.replies{margin-left:1rem;border-left:3px solid #ddd;padding-left:.75rem}
.item{border-top:1px solid #e2e2e2;padding:.5rem 0}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.25rem .4rem;text-align:left;vertical-align:top}
meter{width:3.5rem;max-width:100%;display:block}
.table-wrap{overflow-x:auto;max-width:100%}
.crumbs{margin:.5rem 0}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
fieldset{border:1px solid #bbb;border-radius:4px;margin:.5rem 0}fieldset.slot{border-color:#ddd}
blockquote{border-left:3px solid #ccc;margin:0;padding-left:1rem;color:#4a5560}
.body img{max-width:100%}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{margin-top:2rem;border-top:1px solid #ccc;color:#4a5560;font-size:.9rem}
`

/**
 * The pages' templates (Eta, which escapes every `<%= %>` by default; nothing here uses raw output but
 * the layout's body slot, which only ever holds another template's escaped output). Plain HTML forms that
 * work without JavaScript, labelled fields, one small stylesheet.
 */
import { Eta } from "eta"

const eta = new Eta({ autoEscape: true, autoTrim: false })

eta.loadTemplate("@layout", `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · convene</title>
<link rel="stylesheet" href="/assets/convene.css">
</head>
<body>
<header><a href="/profile/api_access" class="brand">convene</a>
<% if (it.signedIn) { %><form method="post" action="/sign-out" class="inline"><input type="hidden" name="csrf" value="<%= it.csrf %>"><button type="submit">Sign out</button></form><% } %>
</header>
<main>
<h1><%= it.title %></h1>
<%~ it.body %>
</main>
</body>
</html>
`)

eta.loadTemplate("@message", `<p><%= it.text %></p>
<% if (it.link) { %><p><a href="<%= it.link.href %>"><%= it.link.label %></a></p><% } %>
`)

eta.loadTemplate("@invitation", `<p><%= it.inviter %> invited you to <%= it.where %>.</p>
<% if (it.message) { %><blockquote><%= it.message %></blockquote><% } %>
<form method="post" action="/invitations/<%= it.token %>">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<% if (it.askName) { %><p><label for="name">Your name</label><br><input id="name" name="name" required maxlength="100" autocomplete="name"></p><% } %>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<p><button type="submit">Accept invitation</button></p>
</form>
`)

eta.loadTemplate("@sign-in", `<form method="post" action="/sign-in">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<p><label for="email">E-mail address</label><br><input id="email" name="email" type="email" required autocomplete="email" value="<%= it.email %>"></p>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<p><button type="submit">Send me a code</button></p>
</form>
`)

eta.loadTemplate("@sign-in-code", `<p>If an account exists for <strong><%= it.email %></strong>, a 6-digit code is on its way. It works once, for 15 minutes.</p>
<form method="post" action="/sign-in/code">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<input type="hidden" name="email" value="<%= it.email %>">
<p><label for="code">Code</label><br><input id="code" name="code" inputmode="numeric" pattern="[0-9]{6}" required autocomplete="one-time-code"></p>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<p><button type="submit">Sign in</button></p>
</form>
<p><a href="/sign-in">Use another address, or ask for a new code</a></p>
`)

eta.loadTemplate("@sign-in-link", `<form method="post" action="/sign-in/link/<%= it.token %>">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<p><button type="submit">Sign in</button></p>
</form>
`)

eta.loadTemplate("@api-access", `<p>Signed in as <strong><%= it.name %></strong> (<%= it.email %>).</p>
<h2>Your API key</h2>
<% if (it.newKey) { %><p role="status">Your new API key, shown only this once (the old one no longer works):</p>
<p><code id="api-key"><%= it.newKey %></code></p><% } else { %><p>Keys are stored hashed, so a key is shown only when it is made. Generating a new key stops the old one.</p><% } %>
<form method="post" action="/profile/api_access">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<p><button type="submit">Generate a new API key</button></p>
</form>
<h2>Using the API</h2>
<p>Base URL: <code><%= it.apiBase %></code>. Send the key in a header, never in a URL:</p>
<pre><code>curl -H "Authorization: Bearer <%= it.newKey || "YOUR_API_KEY" %>" <%= it.apiBase %>/groups</code></pre>
<h2>Your groups</h2>
<% if (it.groups.length === 0) { %><p>You do not belong to a group yet.</p><% } else { %>
<table><thead><tr><th scope="col">id</th><th scope="col">key</th><th scope="col">name</th></tr></thead><tbody>
<% for (const g of it.groups) { %><tr><td><%= g.id %></td><td><code><%= g.key %></code></td><td><%= g.name %></td></tr><% } %>
</tbody></table><% } %>
`)

eta.loadTemplate("@group", `<% if (it.description) { %><p><%= it.description %></p><% } %>
<h2>Discussions</h2>
<% if (it.discussions.length === 0) { %><p>None yet.</p><% } else { %><ul><% for (const d of it.discussions) { %><li><a href="/d/<%= d.key %>"><%= d.title %></a></li><% } %></ul><% } %>
<h2>Polls</h2>
<% if (it.polls.length === 0) { %><p>None yet.</p><% } else { %><ul><% for (const p of it.polls) { %><li><a href="/p/<%= p.key %>"><%= p.title %></a> (<%= p.state %>)</li><% } %></ul><% } %>
`)

eta.loadTemplate("@thread", `<% if (it.group) { %><p>In <a href="/g/<%= it.group.key %>"><%= it.group.name %></a></p><% } %>
<article class="thread"><%~ it.html %></article>
`)

eta.loadTemplate("@poll", `<% if (it.group) { %><p>In <a href="/g/<%= it.group.key %>"><%= it.group.name %></a></p><% } %>
<% if (it.detailsHtml) { %><div class="details"><%~ it.detailsHtml %></div><% } %>
<p><%= it.state %>. <%= it.cast %> of <%= it.voters %> voted.</p>
<% if (it.notice) { %><p role="status"><%= it.notice %></p><% } %>
<% if (it.error) { %><p class="error" role="alert"><%= it.error %></p><% } %>
<% if (it.canVote) { %>
<form method="post" action="/p/<%= it.key %>/vote">
<input type="hidden" name="csrf" value="<%= it.csrf %>">
<fieldset><legend><%= it.myVote ? "Change your vote" : "Your vote" %></legend>
<% for (const o of it.options) { %>
<% if (it.input === "radio") { %><p><input type="radio" id="o<%= o.id %>" name="choice" value="<%= o.name %>"<%= o.score > 0 ? " checked" : "" %>> <label for="o<%= o.id %>"><%= o.label %></label></p><% } %>
<% if (it.input === "checkbox") { %><p><input type="checkbox" id="o<%= o.id %>" name="choice" value="<%= o.name %>"<%= o.score > 0 ? " checked" : "" %>> <label for="o<%= o.id %>"><%= o.label %></label></p><% } %>
<% if (it.input === "number") { %><p><label for="o<%= o.id %>"><%= o.label %></label> <input type="number" id="o<%= o.id %>" name="score:<%= o.name %>" min="<%= it.min %>" max="<%= it.max %>" value="<%= o.score %>" required></p><% } %>
<% if (it.input === "meeting") { %><p><label for="o<%= o.id %>"><%= o.label %></label> <select id="o<%= o.id %>" name="score:<%= o.name %>"><option value="2"<%= o.score === 2 ? " selected" : "" %>>yes</option><% if (it.maybe) { %><option value="1"<%= o.score === 1 ? " selected" : "" %>>maybe</option><% } %><option value="0"<%= o.score === 0 ? " selected" : "" %>>no</option></select></p><% } %>
<% } %>
</fieldset>
<p><label for="reason">Reason (optional)</label><br><textarea id="reason" name="reason" rows="3" cols="40"><%= it.reason %></textarea></p>
<p><button type="submit"><%= it.myVote ? "Change vote" : "Vote" %></button></p>
</form>
<% } %>
<h2>Results</h2>
<% if (it.results) { %><table><thead><tr><th scope="col">option</th><th scope="col">score</th><th scope="col">voters</th></tr></thead><tbody>
<% for (const r of it.results) { %><tr><td><%= r.label %></td><td><%= r.score %></td><td><%= r.voters %></td></tr><% } %>
</tbody></table><% } else { %><p>Results are hidden <%= it.hiddenUntil %>.</p><% } %>
`)

eta.loadTemplate("@unsubscribe", `<% if (it.muted) { %><p>You no longer receive notification e-mails from <strong><%= it.group %></strong>. Invitations and sign-in codes still arrive.</p>
<% } else { %><p>Stop notification e-mails from <strong><%= it.group %></strong>? Invitations and sign-in codes still arrive.</p>
<form method="post" action="/unsubscribe/<%= it.token %>">
<p><button type="submit">Unsubscribe</button></p>
</form><% } %>
`)

export const render = (template: string, data: object): string => eta.render(template, data)

export const STYLESHEET = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:0 auto;padding:1rem;line-height:1.5;color:#1d2a35}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5rem}
.brand{font-weight:bold;text-decoration:none;color:#2d5b8a}
form.inline{display:inline}
button{background:#2d5b8a;color:#fff;border:0;border-radius:4px;padding:.5rem 1rem;font-size:1rem;cursor:pointer}
input{font-size:1rem;padding:.4rem;width:100%;max-width:24rem;box-sizing:border-box}
.error{color:#a4161a;font-weight:bold}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.25rem .5rem;text-align:left}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto}code{overflow-wrap:anywhere}
fieldset{border:1px solid #ddd;border-radius:4px}textarea{width:100%;max-width:32rem;font-size:1rem}
blockquote{border-left:3px solid #ddd;margin:0;padding-left:1rem;color:#555}
`

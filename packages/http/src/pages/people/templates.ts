/** Invitations, sign-in (by code, link or the identity provider), unsubscribing, API access and the profile (decisions §5, §9). */
import { CSRF, DESCRIBED, ERR, PROVIDER, define } from "../layout/templates.js"

define("@invitation", `<p><%= it.where %></p>
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

define("@sign-in", `${PROVIDER}
<% if (!it.sso || !it.sso.only) { %><% if (it.sso) { %><p><%= it.t("sso.orByMail") %></p><% } %>
<form method="post" action="/sign-in">
${CSRF}
<% if (it.next) { %><input type="hidden" name="next" value="<%= it.next %>"><% } %>
<p><label for="email"><%= it.t("signIn.email") %></label><br><input id="email" name="email" type="email" required autocomplete="email" value="<%= it.email %>"${DESCRIBED("email")}></p>
${ERR("email")}
<p><button type="submit"><%= it.t("signIn.send") %></button></p>
</form><% } %>
`)

define("@sso-only", `<p><%= it.t("sso.only", { name: it.sso.name }) %></p>
${PROVIDER}
`)

define("@sign-in-code", `<p><%= it.t("signIn.sent", { email: it.email }) %></p>
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

define("@sign-in-link", `<form method="post" action="/sign-in/link/<%= it.token %>">
${CSRF}
<p><button type="submit"><%= it.t("signIn.submit") %></button></p>
</form>
`)

define("@api-access", `<p><%~ it.t("apiAccess.signedInAs", { name: it.esc(it.name), email: it.esc(it.email) }) %></p>
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

define("@unsubscribe", `<% if (it.muted) { %><p><%~ it.t("unsubscribe.done", { group: it.esc(it.group) }) %></p>
<% } else { %><p><%~ it.t("unsubscribe.ask", { group: it.esc(it.group) }) %></p>
<form method="post" action="/unsubscribe/<%= it.token %>">
<p><button type="submit"><%= it.t("unsubscribe.button") %></button></p>
</form><% } %>
`)

define("@profile", `<form method="post" action="/profile">
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
<h2><%= it.t("account.heading") %></h2>
<ul class="actions"><li><a href="/profile/email"><%= it.t("account.changeEmail") %></a></li><li><a href="/profile/data" download><%= it.t("account.download") %></a></li><li><a href="/profile/delete"><%= it.t("account.delete") %></a></li></ul>
<p><a href="/profile/api_access"><%= it.t("profile.apiAccess") %></a></p>
`)

define("@delete-account", `<p><%= it.t("account.deleteText") %></p>
<form method="post" action="/profile/delete">
${CSRF}
<p><label for="email"><%= it.t("account.confirmEmail") %></label><br><input id="email" name="email" type="email" required autocomplete="off" value="<%= it.form.email %>"${DESCRIBED("email")}></p>
${ERR("email")}
<p><button type="submit" class="danger"><%= it.t("account.delete") %></button></p>
</form>
`)

define("@change-email", `<p><%= it.t("account.changeEmailText") %></p>
<form method="post" action="/profile/email">
${CSRF}
<p><label for="email"><%= it.t("account.newEmail") %></label><br><input id="email" name="email" type="email" required autocomplete="email" value="<%= it.form.email %>"${DESCRIBED("email")}></p>
${ERR("email")}
<p><button type="submit"><%= it.t("account.changeEmail") %></button></p>
</form>
`)

define("@confirm-email", `<p><%= it.t("account.confirmEmailText", { email: it.email }) %></p>
<form method="post">${CSRF}<p><button type="submit"><%= it.t("account.changeEmail") %></button></p></form>
`)

/** The home page, a group, its members, inviting people and starting a discussion. */
import { CSRF, DESCRIBED, ERR, VOLUME, define } from "../layout/templates.js"

define("@home", `<% if (!it.signedIn) { %>
<p><%= it.t("home.about") %></p>
<p><a class="button" href="/sign-in"><%= it.t("layout.signIn") %></a></p>
<% } else { %>
<h2><%= it.t("home.waiting") %></h2>
<% if (it.waiting.length === 0) { %><p><%= it.t("home.waitingNone") %></p><% } else { %><ul><% for (const p of it.waiting) { %><li><a href="/p/<%= p.key %>"><%= p.title %></a> · <%= it.t("poll.closesAt", { time: p.closes }) %></li><% } %></ul><% } %>
<h2><%= it.t("home.groups") %></h2>
<% if (it.groups.length === 0) { %><p><%= it.t("home.groupsNone") %></p><% } else { %><ul><% for (const g of it.groups) { %><li><a href="/g/<%= g.key %>"><%= g.name %></a></li><% } %></ul><% } %>
<% if (it.mayStartGroup) { %><p><a class="button" href="/g/new"><%= it.t("home.startGroup") %></a></p><% } %>
<h2><%= it.t("home.threads") %></h2>
<% if (it.threads.length === 0) { %><p><%= it.t("home.threadsNone") %></p><% } else { %><ul><% for (const d of it.threads) { %><li><a href="<%= d.href %>"><%= d.title %></a> · <%= it.t("home.active", { time: d.active }) %></li><% } %></ul><% } %>
<% } %>
`)

define("@group", `<% if (it.parent) { %><p><%= it.t("group.subgroupOf") %> <a href="/g/<%= it.parent.key %>"><%= it.parent.name %></a></p><% } %>
<% if (it.descriptionHtml) { %><div class="body"><%~ it.descriptionHtml %></div><% } %>
<% if (it.may.discuss || it.may.poll || it.may.invite || it.may.members || it.may.subgroup || it.may.settings || it.may.leave) { %><ul class="actions">
<% if (it.may.discuss) { %><li><a class="button" href="/g/<%= it.key %>/discussions/new"><%= it.t("group.startDiscussion") %></a></li><% } %>
<% if (it.may.poll) { %><li><a class="button" href="/g/<%= it.key %>/polls/new"><%= it.t("group.startPoll") %></a></li><% } %>
<% if (it.may.invite) { %><li><a class="button" href="/g/<%= it.key %>/invite"><%= it.t("group.invite") %></a></li><% } %>
<% if (it.may.subgroup) { %><li><a class="button" href="/g/<%= it.key %>/subgroups/new"><%= it.t("group.startSubgroup") %></a></li><% } %>
<% if (it.may.settings) { %><li><a href="/g/<%= it.key %>/settings"><%= it.t("group.settings") %></a></li><% } %>
<% if (it.may.leave) { %><li><a href="/g/<%= it.key %>/leave"><%= it.t("group.leave") %></a></li><% } %>
<% if (it.may.members) { %><li><a href="/g/<%= it.key %>/members"><%= it.t("group.members", { count: it.membersCount }) %></a></li><% } %>
</ul><% } %>
<h2><%= it.t("group.openThreads") %></h2>
<% if (it.open.length === 0) { %><p><%= it.t("group.none") %></p><% } else { %><ul><% for (const d of it.open) { %><li><a href="/d/<%= d.key %>"><%= d.title %></a><% if (d.pinned) { %> · <%= it.t("thread.pinned") %><% } %></li><% } %></ul><% } %>
<% if (it.closed.length > 0) { %><h2><%= it.t("group.closedThreads") %></h2><ul><% for (const d of it.closed) { %><li><a href="/d/<%= d.key %>"><%= d.title %></a></li><% } %></ul><% } %>
<h2><%= it.t("group.polls") %></h2>
<% if (it.polls.length === 0) { %><p><%= it.t("group.none") %></p><% } else { %><ul><% for (const p of it.polls) { %><li><a href="/p/<%= p.key %>"><%= p.title %></a> · <%= p.state %></li><% } %></ul><% } %>
<% if (it.subgroups.length > 0) { %><h2><%= it.t("group.subgroups") %></h2><ul><% for (const g of it.subgroups) { %><li><a href="/g/<%= g.key %>"><%= g.name %></a></li><% } %></ul><% } %>
<% if (it.volume) { %>${VOLUME("/g/<%= it.key %>/volume", "volume.groupTitle")}<% } %>
`)

define("@members", `<table><caption class="visually-hidden"><%= it.t("members.caption") %></caption>
<thead><tr><th scope="col"><%= it.t("apiAccess.name") %></th><th scope="col"><%= it.t("members.role") %></th><% if (it.manage || it.invite) { %><th scope="col"><%= it.t("members.actions") %></th><% } %></tr></thead><tbody>
<% for (const m of it.members) { %><tr><td><%= m.name %></td><td><%= m.marks %></td><% if (it.manage || it.invite) { %><td>
<% if (m.pending && it.invite) { %><form method="post" action="/g/<%= it.key %>/members/<%= m.id %>/resend" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t("members.resendOf", { email: m.name }) %>"><%= it.t("members.resend") %></button></form>
<form method="post" action="/g/<%= it.key %>/members/<%= m.id %>/cancel" class="inline">${CSRF}<button type="submit" class="danger" aria-label="<%= it.t("members.cancelOf", { email: m.name }) %>"><%= it.t("members.cancel") %></button></form>
<% } else if (!m.pending && it.manage) { %><% if (!m.admin) { %><form method="post" action="/g/<%= it.key %>/members/<%= m.id %>/admin" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t("members.makeAdminOf", { name: m.name }) %>"><%= it.t("members.makeAdmin") %></button></form><% } %>
<% if (!m.self) { %><form method="post" action="/g/<%= it.key %>/members/<%= m.id %>/remove" class="inline">${CSRF}<button type="submit" class="danger" aria-label="<%= it.t("members.removeOf", { name: m.name }) %>"><%= it.t("members.remove") %></button></form><% } %>
<% } %></td><% } %></tr><% } %>
</tbody></table>
`)

define("@invite", `<form method="post" action="/g/<%= it.key %>/invite">
${CSRF}
<p><label for="emails"><%= it.t("invite.emails") %></label><br><textarea id="emails" name="emails" rows="4" required aria-describedby="emails-hint<%= it.errors && it.errors.emails ? " emails-error" : "" %>"<%= it.errors && it.errors.emails ? " aria-invalid=true" : "" %>><%= it.form.emails %></textarea></p>
<p class="hint" id="emails-hint"><%= it.t("invite.emailsHint") %></p>
${ERR("emails")}
<p><label for="message"><%= it.t("invite.message") %></label><br><textarea id="message" name="message" rows="4"${DESCRIBED("message")}><%= it.form.message %></textarea></p>
${ERR("message")}
<p><button type="submit"><%= it.t("invite.send") %></button></p>
</form>
`)

define("@new-discussion", `<form method="post" action="/g/<%= it.key %>/discussions/new">
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

define("@new-group", `<form method="post" action="<%= it.action %>">
${CSRF}
<p><label for="name"><%= it.t("newGroup.name") %></label><br><input id="name" name="name" required maxlength="250" value="<%= it.form.name %>"${DESCRIBED("name")}></p>
${ERR("name")}
<p><label for="handle"><%= it.t("newGroup.handle") %></label><br><input id="handle" name="handle" maxlength="63" value="<%= it.form.handle %>" aria-describedby="handle-hint<%= it.errors && it.errors.handle ? " handle-error" : "" %>"<%= it.errors && it.errors.handle ? " aria-invalid=true" : "" %>></p>
<p class="hint" id="handle-hint"><%= it.handleHint %></p>
${ERR("handle")}
<p><label for="description"><%= it.t("newGroup.description") %></label><br><textarea id="description" name="description" rows="5" aria-describedby="markdown-hint<%= it.errors && it.errors.description ? " description-error" : "" %>"><%= it.form.description %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
${ERR("description")}
<p class="hint"><%= it.t("newGroup.secret") %></p>
<p><button type="submit"><%= it.parent ? it.t("newGroup.startSubgroup") : it.t("newGroup.start") %></button></p>
</form>
`)

define("@group-settings", `<form method="post" action="/g/<%= it.key %>/settings">
${CSRF}
<p><label for="name"><%= it.t("newGroup.name") %></label><br><input id="name" name="name" required maxlength="250" value="<%= it.form.name %>"${DESCRIBED("name")}></p>
${ERR("name")}
<p><label for="handle"><%= it.t("newGroup.handle") %></label><br><input id="handle" name="handle" maxlength="63" value="<%= it.form.handle %>"${DESCRIBED("handle")}></p>
${ERR("handle")}
<p><label for="description"><%= it.t("newGroup.description") %></label><br><textarea id="description" name="description" rows="5" aria-describedby="markdown-hint<%= it.errors && it.errors.description ? " description-error" : "" %>"><%= it.form.description %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
${ERR("description")}
<fieldset><legend><%= it.t("settings.privacy") %></legend>
<% for (const p of it.privacies) { %><p><input type="radio" id="privacy-<%= p.value %>" name="group_privacy" value="<%= p.value %>" aria-describedby="privacy-<%= p.value %>-hint"<%= it.form.group_privacy === p.value ? " checked" : "" %>> <label for="privacy-<%= p.value %>"><%= p.label %></label><br><span class="hint" id="privacy-<%= p.value %>-hint"><%= p.hint %></span></p><% } %>
</fieldset>${ERR("group_privacy")}
<fieldset><legend><%= it.t("settings.permissions") %></legend>
<% for (const f of it.flags) { %><p><input type="checkbox" id="<%= f.name %>" name="<%= f.name %>" value="1"<%= f.on ? " checked" : "" %>> <label for="<%= f.name %>"><%= f.label %></label></p><% } %>
</fieldset>
<p><button type="submit"><%= it.t("settings.save") %></button></p>
</form>
`)

define("@leave", `<p><%= it.t("leave.text", { group: it.name }) %></p>
<% if (it.lastAdmin) { %><p class="notice" role="note"><%= it.t("leave.lastAdmin") %></p><% } %>
<form method="post" action="/g/<%= it.key %>/leave">${CSRF}<div class="actions"><button type="submit" class="danger"><%= it.t("group.leave") %></button> <a href="/g/<%= it.key %>"><%= it.t("leave.stay") %></a></div></form>
`)

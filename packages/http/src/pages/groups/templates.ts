/** The home page, a group, its members, inviting people and starting a discussion. */
import { ATTACH, CSRF, DESCRIBED, ERR, THREAD_LINK, VOLUME, define } from "../layout/templates.js"

define("@home", `<% if (!it.signedIn) { %>
<p><%= it.t("home.about") %></p>
<p><a class="button" href="/sign-in"><%= it.t("layout.signIn") %></a></p>
<% } else { %>
<div id="home-waiting" data-live-region><h2><%= it.t("home.waiting") %></h2>
<% if (it.waiting.length === 0) { %><p><%= it.t("home.waitingNone") %></p><% } else { %><ul><% for (const p of it.waiting) { %><li><a href="/p/<%= p.key %>"><%= p.title %></a> · <%= it.t("poll.closesAt", { time: p.closes }) %></li><% } %></ul><% } %></div>
<h2><%= it.t("home.groups") %></h2>
<% if (it.groups.length === 0) { %><p><%= it.t("home.groupsNone") %></p><% } else { %><ul><% for (const g of it.groups) { %><li><a href="/g/<%= g.key %>"><%= g.name %></a></li><% } %></ul><% } %>
<% if (it.mayStartGroup) { %><p><a class="button" href="/g/new"><%= it.t("home.startGroup") %></a></p><% } %>
<div id="home-threads" data-live-region><h2><%= it.t("home.threads") %></h2>
<% if (it.threads.length === 0) { %><p><%= it.t("home.threadsNone") %></p><% } else { %><% if (it.threads.some((d) => d.isNew)) { %><form method="post" action="/read-all">${CSRF}<p><button type="submit"><%= it.t("home.markAllRead") %></button></p></form><% } %>
<ul class="threads"><% for (const d of it.threads) { %><li>${THREAD_LINK} · <%= it.t("home.active", { time: d.active }) %></li><% } %></ul><% } %></div>
<% } %>
`)

define("@group", `<% if (it.parent) { %><p><%= it.t("group.subgroupOf") %> <a href="/g/<%= it.parent.key %>"><%= it.parent.name %></a></p><% } %>
<% if (it.descriptionHtml) { %><div class="body"><%~ it.descriptionHtml %></div><% } %>
<% if (it.joining.join) { %><form method="post" action="/g/<%= it.key %>/join">${CSRF}<p><button type="submit"><%= it.t("group.join") %></button></p></form><% } %>
<% if (it.joining.requested) { %><p class="notice" role="note"><%= it.t("group.requested") %></p><% } else if (it.joining.ask) { %><p><a class="button" href="/g/<%= it.key %>/ask"><%= it.t("group.ask") %></a></p><% } %>
<% if (it.may.discuss || it.may.poll || it.may.invite || it.may.members || it.may.subgroup || it.may.settings || it.may.leave || it.may.requests || it.may.delegate) { %><ul class="actions">
<% if (it.may.discuss) { %><li><a class="button" href="/g/<%= it.key %>/discussions/new"><%= it.t("group.startDiscussion") %></a></li><% } %>
<% if (it.may.poll) { %><li><a class="button" href="/g/<%= it.key %>/polls/new"><%= it.t("group.startPoll") %></a></li><% } %>
<% if (it.may.invite) { %><li><a class="button" href="/g/<%= it.key %>/invite"><%= it.t("group.invite") %></a></li><% } %>
<% if (it.may.subgroup) { %><li><a class="button" href="/g/<%= it.key %>/subgroups/new"><%= it.t("group.startSubgroup") %></a></li><% } %>
<% if (it.may.requests) { %><li><a href="/g/<%= it.key %>/requests"><%= it.t("group.requests") %></a></li><% } %>
<% if (it.may.settings) { %><li><a href="/g/<%= it.key %>/settings"><%= it.t("group.settings") %></a></li><li><a href="/g/<%= it.key %>/tags"><%= it.t("tags.manage") %></a></li><li><a href="/g/<%= it.key %>/templates"><%= it.t("templates.manage") %></a></li><% } %>
<% if (it.may.delegate) { %><li><a href="/g/<%= it.key %>/delegation"><%= it.t("group.delegation") %></a></li><% } %>
<% if (it.may.leave) { %><li><a href="/g/<%= it.key %>/leave"><%= it.t("group.leave") %></a></li><% } %>
<% if (it.may.members) { %><li><a href="/g/<%= it.key %>/members"><%= it.t("group.members", { count: it.membersCount }) %></a></li><% } %>
</ul><% } %>
<h2><%= it.tag ? it.t("tags.filteredBy", { tag: it.tag }) : it.t("group.openThreads") %></h2>
<% if (it.tags.length > 0) { %><nav aria-label="<%= it.t("thread.tags") %>"><p class="tags"><% if (it.tag) { %><a href="/g/<%= it.key %>"><%= it.t("tags.all") %></a> <% } %><% for (const tag of it.tags) { %><a class="tag" href="<%= tag.href %>"<%= tag.current ? ' aria-current="page"' : "" %>><img src="/assets/swatch/<%= tag.swatch %>.svg" alt="" width="12" height="12"> <%= tag.name %></a> <% } %></p></nav><% } %>
<% if (it.open.length === 0) { %><p><%= it.t("group.none") %></p><% } else { %><ul class="threads"><% for (const d of it.open) { %><li>${THREAD_LINK}<% if (d.pinned) { %> · <%= it.t("thread.pinned") %><% } %></li><% } %></ul><% } %>
<% if (it.closed.length > 0) { %><h2><%= it.t("group.closedThreads") %></h2><ul class="threads"><% for (const d of it.closed) { %><li>${THREAD_LINK}</li><% } %></ul><% } %>
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
<% if (it.delegations) { %><h2 id="delegations"><%= it.t("members.delegations") %></h2>
<% if (it.delegations.length === 0) { %><p><%= it.t("members.delegationsNone") %></p><% } else { %><table><caption class="visually-hidden"><%= it.t("members.delegations") %></caption>
<thead><tr><th scope="col"><%= it.t("members.delegator") %></th><th scope="col"><%= it.t("delegation.delegate") %></th><th scope="col"><%= it.t("members.delegationFrom") %></th><th scope="col"><%= it.t("members.delegationUntil") %></th></tr></thead><tbody>
<% for (const d of it.delegations) { %><tr><td><%= d.delegator %></td><td><%= d.delegate %></td><td><%= d.from %></td><td><%= d.until %></td></tr><% } %>
</tbody></table><% } %><% } %>
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
<% if (it.link) { %><section aria-labelledby="link-title"><h2 id="link-title"><%= it.t("link.title") %></h2>
<p><label for="join-link"><%= it.t("link.label") %></label><br><input id="join-link" readonly value="<%= it.link %>" aria-describedby="join-link-hint"></p>
<p class="hint" id="join-link-hint"><%= it.t("link.hint") %></p>
<form method="post" action="/g/<%= it.key %>/link/reset">${CSRF}<p><button type="submit"><%= it.t("link.reset") %></button></p></form></section><% } %>
`)

define("@new-discussion", `<form method="post" action="/g/<%= it.key %>/discussions/new" enctype="multipart/form-data">
${CSRF}
<p><label for="title"><%= it.t("discussion.title") %></label><br><input id="title" name="title" required maxlength="250" value="<%= it.form.title %>"${DESCRIBED("title")}></p>
${ERR("title")}
<p><label for="description"><%= it.t("discussion.details") %></label><br><textarea id="description" name="description" rows="6" aria-describedby="markdown-hint"><%= it.form.description %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
<% if (it.privacyChoice) { %><fieldset><legend><%= it.t("discussion.privacy") %></legend>
<p><input type="radio" id="private-1" name="private" value="1"<%= it.form.private !== "0" ? " checked" : "" %>> <label for="private-1"><%= it.t("discussion.private") %></label></p>
<p><input type="radio" id="private-0" name="private" value="0"<%= it.form.private === "0" ? " checked" : "" %>> <label for="private-0"><%= it.t("discussion.public") %></label></p>
</fieldset>${ERR("private")}<% } %>
${ATTACH("description")}
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
<fieldset aria-describedby="joining-hint"><legend><%= it.t("settings.whoCanJoin") %></legend>
<p class="hint" id="joining-hint"><%= it.t("settings.whoCanJoinHint") %></p>
<% for (const j of it.joinings) { %><p><input type="radio" id="joining-<%= j.value %>" name="membership_granted_upon" value="<%= j.value %>"<%= it.form.membership_granted_upon === j.value ? " checked" : "" %>> <label for="joining-<%= j.value %>"><%= j.label %></label></p><% } %>
</fieldset>${ERR("membership_granted_upon")}
<fieldset><legend><%= it.t("settings.permissions") %></legend>
<% for (const f of it.flags) { %><p><input type="checkbox" id="<%= f.name %>" name="<%= f.name %>" value="1"<%= f.on ? " checked" : "" %>> <label for="<%= f.name %>"><%= f.label %></label></p><% } %>
</fieldset>
<fieldset aria-describedby="delegation-hint"><legend><%= it.t("settings.delegation") %></legend>
<p class="hint" id="delegation-hint"><%= it.t("settings.delegationHint") %></p>
<p><input type="checkbox" id="members_can_delegate" name="members_can_delegate" value="1"<%= it.delegation.on ? " checked" : "" %>> <label for="members_can_delegate"><%= it.t("settings.members_can_delegate") %></label></p>
<p><label for="delegation_limit"><%= it.t("settings.delegation_limit") %></label><br><input id="delegation_limit" name="delegation_limit" type="number" min="1" max="100" inputmode="numeric" value="<%= it.delegation.limit %>"${DESCRIBED("delegation_limit")}></p>
${ERR("delegation_limit")}
</fieldset>
<p><button type="submit"><%= it.t("settings.save") %></button></p>
</form>
<p><a href="/g/<%= it.key %>/delete"><%= it.t("group.delete") %></a></p>
`)

define("@leave", `<p><%= it.t("leave.text", { group: it.name }) %></p>
<% if (it.lastAdmin) { %><p class="notice" role="note"><%= it.t("leave.lastAdmin") %></p><% } %>
<form method="post" action="/g/<%= it.key %>/leave">${CSRF}<div class="actions"><button type="submit" class="danger"><%= it.t("group.leave") %></button> <a href="/g/<%= it.key %>"><%= it.t("leave.stay") %></a></div></form>
`)

define("@ask-to-join", `<form method="post" action="/g/<%= it.key %>/ask">
${CSRF}
<p><label for="introduction"><%= it.t("ask.introduction") %></label><br><textarea id="introduction" name="introduction" rows="4" required maxlength="250" aria-describedby="introduction-hint<%= it.errors && it.errors.introduction ? " introduction-error" : "" %>"<%= it.errors && it.errors.introduction ? " aria-invalid=true" : "" %>><%= it.form.introduction %></textarea></p>
<p class="hint" id="introduction-hint"><%= it.t("ask.introductionHint") %></p>
${ERR("introduction")}
<p><button type="submit"><%= it.t("group.ask") %></button></p>
</form>
`)

define("@requests", `<h2><%= it.t("requests.waiting") %></h2>
<% if (it.waiting.length === 0) { %><p><%= it.t("requests.none") %></p><% } %>
<% for (const r of it.waiting) { %><section class="request" aria-labelledby="request-<%= r.id %>"><h3 id="request-<%= r.id %>"><%= r.name %></h3>
<p class="meta"><%= it.t("requests.asked", { when: r.asked }) %></p>
<blockquote><p><%= r.introduction %></p></blockquote>
<form method="post" action="/g/<%= it.key %>/requests/<%= r.id %>/approve" class="inline">${CSRF}<button type="submit" aria-label="<%= it.t("requests.approveOf", { name: r.name }) %>"><%= it.t("requests.approve") %></button></form>
<form method="post" action="/g/<%= it.key %>/requests/<%= r.id %>/decline">${CSRF}
<p><label for="reason-<%= r.id %>"><%= it.t("requests.reason", { name: r.name }) %></label><br><textarea id="reason-<%= r.id %>" name="reason" rows="2" maxlength="500"></textarea></p>
<p><button type="submit" class="danger" aria-label="<%= it.t("requests.declineOf", { name: r.name }) %>"><%= it.t("requests.decline") %></button></p></form>
</section><% } %>
<% if (it.answered.length > 0) { %><h2><%= it.t("requests.previous") %></h2><ul><% for (const r of it.answered) { %><li><%= r.name %> · <%= r.answer %></li><% } %></ul><% } %>
`)

define("@join-link", `<p><%= it.t("joinLink.text", { group: it.name }) %></p>
<form method="post">${CSRF}<p><button type="submit"><%= it.t("group.join") %></button></p></form>
`)

define("@delete-group", `<p><%= it.t("deleteGroup.text") %></p>
<form method="post" action="/g/<%= it.key %>/delete">${CSRF}
<p><label for="confirmation"><%= it.t("deleteGroup.confirm", { name: it.name }) %></label><br><input id="confirmation" name="confirmation" required autocomplete="off" value="<%= it.form.confirmation %>"${DESCRIBED("confirmation")}></p>
${ERR("confirmation")}
<div class="actions"><button type="submit" class="danger"><%= it.t("group.delete") %></button> <a href="/g/<%= it.key %>"><%= it.t("deleteGroup.keep") %></a></div></form>
`)

define("@explore", `<form method="get" action="/explore" role="search"><p><label for="q"><%= it.t("explore.search") %></label><br><input id="q" name="q" type="search" maxlength="100" value="<%= it.q %>"> <button type="submit"><%= it.t("explore.submit") %></button></p></form>
<% if (it.groups.length === 0) { %><p><%= it.t("explore.none") %></p><% } else { %><ul class="groups"><% for (const g of it.groups) { %><li><a href="/g/<%= g.key %>"><%= g.name %></a> · <%= g.members %><% if (g.description) { %><br><span class="hint"><%= g.description %></span><% } %></li><% } %></ul><% } %>
<% if (it.previous || it.next) { %><nav aria-label="<%= it.t("explore.title") %>"><ul class="actions"><% if (it.previous) { %><li><a href="<%= it.previous %>"><%= it.t("explore.previous") %></a></li><% } %><% if (it.next) { %><li><a href="<%= it.next %>"><%= it.t("explore.next") %></a></li><% } %></ul></nav><% } %>
`)

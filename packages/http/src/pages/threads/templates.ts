/** A thread: its items, a comment, editing one. */
import { ATTACH, CSRF, DESCRIBED, ERR, FILES, KEEP_FILES, REACTIONS, VOLUME, define } from "../layout/templates.js"

const COMMENT_FORM = (action: string, id: string, button: string) => `<form method="post" action="${action}" class="comment-form" enctype="multipart/form-data">
${CSRF}
<p><label for="${id}"><%= it.t("comment.field") %></label><br><textarea id="${id}" name="body" rows="3"></textarea></p>
${ATTACH(id)}
<p><button type="submit">${button}</button></p>
</form>`

define("@thread", `<p class="meta"><%= it.t("thread.started", { name: it.author, time: it.started }) %><% if (it.closed) { %> · <strong><%= it.t("thread.closed", { time: it.closed }) %></strong><% } %></p>
<% if (it.descriptionHtml) { %><div class="body"><%~ it.descriptionHtml %></div><% } %>
${FILES("it.files")}
<% if (it.tags.length > 0) { %><p class="tags"><%= it.t("thread.taggedWith") %> <% for (const tag of it.tags) { %><a class="tag" href="<%= tag.href %>"><img src="/assets/swatch/<%= tag.swatch %>.svg" alt="" width="12" height="12"> <%= tag.name %></a> <% } %></p><% } %>
<% if (it.edited) { %><p><a href="/d/<%= it.key %>/edits"><%= it.t("thread.showEdits") %></a></p><% } %>
<% if (it.may.close || it.may.reopen || it.may.poll || it.may.pin || it.may.edit) { %><div class="actions">
<% if (it.may.edit) { %><a class="button" href="/d/<%= it.key %>/edit"><%= it.t("thread.edit") %></a> <a href="/d/<%= it.key %>/move"><%= it.t("thread.move") %></a><% } %>
<% if (it.may.poll) { %><a class="button" href="/d/<%= it.key %>/polls/new"><%= it.t("group.startPoll") %></a><% } %>
<% if (it.may.close) { %><form method="post" action="/d/<%= it.key %>/close" class="inline">${CSRF}<button type="submit"><%= it.t("thread.close") %></button></form><% } %>
<% if (it.may.reopen) { %><form method="post" action="/d/<%= it.key %>/reopen" class="inline">${CSRF}<button type="submit"><%= it.t("thread.reopen") %></button></form><% } %>
<% if (it.may.pin) { %><form method="post" action="/d/<%= it.key %>/<%= it.pinned ? "unpin" : "pin" %>" class="inline">${CSRF}<button type="submit"><%= it.pinned ? it.t("thread.unpin") : it.t("thread.pin") %></button></form><% } %>
</div><% } %>
<div id="thread-activity" data-live-region><h2><%= it.t("thread.activity") %></h2>
<% if (it.items.length === 0) { %><p><%= it.t("thread.nothingYet") %></p><% } %>
<% if (it.earlier) { %><nav aria-label="<%= it.t("thread.pages") %>" class="pages"><a href="<%= it.earlier %>" rel="prev"><%= it.t("thread.earlier") %></a></nav><% } %>
<% if (it.anyDeletable) { %><form id="comment-actions" method="post" hidden>${CSRF}</form><% } %>
<ol class="items">
<% const cx = { t: it.t, csrf: it.csrf, key: it.key, back: it.back, may: it.may, reply: it.reply, replyAt: it.replyAt } %>
<% for (const item of it.items) { %><li class="item item-<%= item.kind %>" id="<%= item.anchor %>">
<% if (item.unread) { %><p class="unread" id="unread"><strong><%= it.t("thread.unread") %></strong></p><% } %>
<% if (item.kind === "comment") { %><%~ include("@comment", { ...cx, c: item }) %>
<% } else if (item.kind === "poll") { %><article><h3><a href="/p/<%= item.key %>"><%= item.title %></a></h3><p><%= item.summary %></p></article>
<% } else { %><p class="meta"><%= item.text %></p><% if (item.html) { %><div class="body"><%~ item.html %></div><% } %><% } %>
</li><% } %>
</ol>
<% if (it.later) { %><nav aria-label="<%= it.t("thread.pagesLater") %>" class="pages"><a href="<%= it.later %>" rel="next"><%= it.t("thread.later") %></a></nav><% } %></div>
<% if (it.may.comment) { %><h2><%= it.t("comment.add") %></h2>
${COMMENT_FORM("/d/<%= it.key %>/comments", "comment", "<%= it.t(\"comment.post\") %>")}<% } %>
<% if (it.volume) { %>${VOLUME("/d/<%= it.key %>/volume", "volume.threadTitle")}<% } %>
`)

define("@comment", `<article aria-labelledby="c<%= it.c.id %>-by">
<p class="meta" id="c<%= it.c.id %>-by"><strong><%= it.c.author %></strong> · <%= it.c.time %><% if (it.c.edited) { %> · <%= it.t("comment.edited") %><% } %></p>
<div class="body"><%~ it.c.html %></div>
${FILES("it.c.files")}
${REACTIONS("it.c.react")}
<% if (it.c.mayEdit || it.c.mayDelete) { %><div class="actions comment-actions">
<% if (it.c.mayEdit) { %><a href="/d/<%= it.key %>/comments/<%= it.c.id %>/edit" aria-label="<%= it.t("comment.editOf", { name: it.c.author }) %>"><%= it.t("comment.edit") %></a><% } %>
<% if (it.c.mayDelete) { %><button type="submit" form="comment-actions" formaction="/d/<%= it.key %>/comments/<%= it.c.id %>/delete" class="link danger" aria-label="<%= it.t("comment.deleteOf", { name: it.c.author }) %>"><%= it.t("comment.delete") %></button><% } %>
</div><% } %>
<% if (it.c.replies.length > 0) { %><ol class="replies"><% for (const r of it.c.replies) { %><li id="comment-<%= r.id %>"><%~ include("@comment", { ...it, c: r }) %></li><% } %></ol><% } %>
<% if (it.may.comment && it.c.depth === 0) { %><% if (it.reply === it.c.id) { %><form method="post" action="/d/<%= it.key %>/comments" class="comment-form reply-form" enctype="multipart/form-data" aria-label="<%= it.t("comment.replyTo", { name: it.c.author }) %>">
${CSRF}
<input type="hidden" name="parent_id" value="<%= it.c.id %>">
<p><label for="reply-<%= it.c.id %>"><%= it.t("comment.field") %></label><br><textarea id="reply-<%= it.c.id %>" name="body" rows="3" autofocus></textarea></p>
${ATTACH("reply-<%= it.c.id %>")}
<p><button type="submit"><%= it.t("comment.post") %></button> <a href="<%= it.back %>#comment-<%= it.c.id %>"><%= it.t("form.cancel") %></a></p>
</form><% } else { %><p><a class="reply" href="<%= it.replyAt %><%= it.c.id %>#reply-<%= it.c.id %>"><%= it.t("comment.reply") %><span class="visually-hidden"> <%= it.t("comment.toName", { name: it.c.author }) %></span></a></p><% } %><% } %>
</article>
`)

define("@edit-comment", `<form method="post" action="/d/<%= it.key %>/comments/<%= it.id %>/edit" enctype="multipart/form-data">
${CSRF}
<p><label for="body"><%= it.t("comment.field") %></label><br><textarea id="body" name="body" rows="6" required${DESCRIBED("body")}><%= it.form.body %></textarea></p>
${ERR("body")}
${KEEP_FILES("it.files")}
${ATTACH("body")}
<p><button type="submit"><%= it.t("comment.save") %></button></p>
</form>
<p><a href="/d/<%= it.key %>"><%= it.t("form.cancel") %></a></p>
`)

define("@edit-thread", `<form method="post" action="/d/<%= it.key %>/edit" enctype="multipart/form-data">
${CSRF}
<p><label for="title"><%= it.t("discussion.title") %></label><br><input id="title" name="title" required maxlength="250" value="<%= it.form.title %>"${DESCRIBED("title")}></p>
${ERR("title")}
<p><label for="description"><%= it.t("discussion.details") %></label><br><textarea id="description" name="description" rows="8" aria-describedby="markdown-hint<%= it.errors && it.errors.description ? " description-error" : "" %>"><%= it.form.description %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
${ERR("description")}
${KEEP_FILES("it.files")}
${ATTACH("description")}
<p><label for="tags"><%= it.t("thread.tags") %></label><br><input id="tags" name="tags" maxlength="1100" value="<%= it.form.tags %>" aria-describedby="tags-hint<%= it.errors && it.errors.tags ? " tags-error" : "" %>"<%= it.errors && it.errors.tags ? " aria-invalid=true" : "" %>></p>
<p class="hint" id="tags-hint"><%= it.t("thread.tagsHint") %></p>
${ERR("tags")}
<p><label for="change"><%= it.t("thread.whatChanged") %></label><br><textarea id="change" name="change" rows="3" aria-describedby="change-hint"><%= it.form.change %></textarea></p>
<p class="hint" id="change-hint"><%= it.t("thread.whatChangedHint") %></p>
<p><button type="submit"><%= it.t("thread.save") %></button></p>
</form>
<p><a href="/d/<%= it.key %>"><%= it.t("form.cancel") %></a></p>
`)

define("@thread-edits", `<% if (it.edits.length === 0) { %><p><%= it.t("thread.noEdits") %></p><% } %>
<% for (const [i, e] of it.edits.entries()) { %><section aria-labelledby="edit-<%= i %>"><h2 id="edit-<%= i %>"><%= e.by %></h2>
<table><caption class="visually-hidden"><%= e.by %></caption><thead><tr><th scope="col"><%= it.t("thread.field") %></th><th scope="col"><%= it.t("thread.before") %></th><th scope="col"><%= it.t("thread.after") %></th></tr></thead>
<tbody><% for (const c of e.changes) { %><tr><th scope="row"><%= c.field %></th><td class="change"><%= c.before %></td><td class="change"><%= c.after %></td></tr><% } %></tbody></table></section><% } %>
`)

define("@move-thread", `<% if (it.targets.length === 0) { %><p><%= it.t("thread.moveNowhere") %></p><% } else { %><form method="post" action="/d/<%= it.key %>/move">
${CSRF}
<p><label for="group"><%= it.t("thread.moveTo") %></label><br><select id="group" name="group" aria-describedby="group-hint<%= it.errors && it.errors.group ? " group-error" : "" %>"><% for (const g of it.targets) { %><option value="<%= g.key %>"><%= g.name %></option><% } %></select></p>
<p class="hint" id="group-hint"><%= it.t("thread.moveHint") %></p>
${ERR("group")}
<p><button type="submit"><%= it.t("thread.move") %></button></p>
</form><% } %>
<p><a href="/d/<%= it.key %>"><%= it.t("form.cancel") %></a></p>
`)

define("@tags", `<% if (it.tags.length === 0) { %><p><%= it.t("tags.none") %></p><% } else { %><p class="hint" id="delete-hint"><%= it.t("tags.deleteHint") %></p>
<ul class="tags"><% for (const tag of it.tags) { %><li><form method="post" action="/g/<%= it.key %>/tags/<%= tag.id %>" class="inline">${CSRF}
<label for="tag-<%= tag.id %>-name" class="visually-hidden"><%= it.t("tags.name") %></label><input id="tag-<%= tag.id %>-name" name="name" required maxlength="50" value="<%= tag.name %>">
<label for="tag-<%= tag.id %>-color"><%= it.t("tags.color") %></label> <input id="tag-<%= tag.id %>-color" name="color" type="color" value="<%= tag.color %>">
<button type="submit" aria-label="<%= it.t("tags.saveOf", { name: tag.name }) %>"><%= it.t("tags.save") %></button></form>
<form method="post" action="/g/<%= it.key %>/tags/<%= tag.id %>/delete" class="inline">${CSRF}<button type="submit" class="danger" aria-describedby="delete-hint" aria-label="<%= it.t("tags.deleteOf", { name: tag.name }) %>"><%= it.t("tags.delete") %></button></form></li><% } %></ul><% } %>
<h2><%= it.t("tags.newTag") %></h2>
<form method="post" action="/g/<%= it.key %>/tags">
${CSRF}
<p><label for="name"><%= it.t("tags.name") %></label><br><input id="name" name="name" required maxlength="50" value="<%= it.form.name %>"${DESCRIBED("name")}></p>
${ERR("name")}
<p><label for="color"><%= it.t("tags.color") %></label><br><input id="color" name="color" type="color" value="<%= it.form.color || it.nextColor %>"${DESCRIBED("color")}></p>
${ERR("color")}
<p><button type="submit"><%= it.t("tags.add") %></button></p>
</form>
`)

define("@react", `<form method="post" action="/reactions">
${CSRF}
<input type="hidden" name="reactable_type" value="<%= it.type %>"><input type="hidden" name="reactable_id" value="<%= it.id %>"><input type="hidden" name="back" value="<%= it.back %>">
<p><% for (const x of it.emoji) { %><button type="submit" name="reaction" value="<%= x.e %>" class="emoji" aria-label="<%= x.label %>"><%= x.e %></button> <% } %></p>
</form>
<p><a href="<%= it.back %>"><%= it.t("form.cancel") %></a></p>
`)

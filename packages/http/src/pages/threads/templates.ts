/** A thread: its items, a comment, editing one. */
import { CSRF, DESCRIBED, ERR, VOLUME, define } from "../layout/templates.js"

const COMMENT_FORM = (action: string, id: string, button: string) => `<form method="post" action="${action}" class="comment-form">
${CSRF}
<p><label for="${id}"><%= it.t("comment.field") %></label><br><textarea id="${id}" name="body" rows="3" required></textarea></p>
<p><button type="submit">${button}</button></p>
</form>`

define("@thread", `<p class="meta"><%= it.t("thread.started", { name: it.author, time: it.started }) %><% if (it.closed) { %> · <strong><%= it.t("thread.closed", { time: it.closed }) %></strong><% } %></p>
<% if (it.descriptionHtml) { %><div class="body"><%~ it.descriptionHtml %></div><% } %>
<% if (it.may.close || it.may.reopen || it.may.poll || it.may.pin) { %><div class="actions">
<% if (it.may.poll) { %><a class="button" href="/d/<%= it.key %>/polls/new"><%= it.t("group.startPoll") %></a><% } %>
<% if (it.may.close) { %><form method="post" action="/d/<%= it.key %>/close" class="inline">${CSRF}<button type="submit"><%= it.t("thread.close") %></button></form><% } %>
<% if (it.may.reopen) { %><form method="post" action="/d/<%= it.key %>/reopen" class="inline">${CSRF}<button type="submit"><%= it.t("thread.reopen") %></button></form><% } %>
<% if (it.may.pin) { %><form method="post" action="/d/<%= it.key %>/<%= it.pinned ? "unpin" : "pin" %>" class="inline">${CSRF}<button type="submit"><%= it.pinned ? it.t("thread.unpin") : it.t("thread.pin") %></button></form><% } %>
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

define("@comment", `<article aria-labelledby="c<%= it.c.id %>-by">
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

define("@edit-comment", `<form method="post" action="/d/<%= it.key %>/comments/<%= it.id %>/edit">
${CSRF}
<p><label for="body"><%= it.t("comment.field") %></label><br><textarea id="body" name="body" rows="6" required${DESCRIBED("body")}><%= it.form.body %></textarea></p>
${ERR("body")}
<p><button type="submit"><%= it.t("comment.save") %></button></p>
</form>
<p><a href="/d/<%= it.key %>"><%= it.t("form.cancel") %></a></p>
`)

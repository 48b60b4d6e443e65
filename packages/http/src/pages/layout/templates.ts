/**
 * The pages' templates (Eta, which escapes every `<%= %>` by default). Raw output (`<%~ %>`) is used only
 * for the layout's body slot (another template's escaped output) and for bodies the core's one sanitizer
 * made (`html` fields). Every text comes from `it.t` (i18n.ts); plain HTML forms that work without
 * JavaScript, each field labelled, each refusal beside its field. The layout and what every page shares are
 * here; each feature's templates live in its folder (`define`d when its routes are loaded).
 */
import { Eta } from "eta"

const eta = new Eta({ autoEscape: true, autoTrim: false })

/** A form's hidden CSRF field. */
export const CSRF = `<input type="hidden" name="csrf" value="<%= it.csrf %>">`
/** A field's message (a 422), tied to the field by aria-describedby. */
/** The identity provider's button (decisions §10), where a page offers it: a form, so that starting is CSRF-checked. */
export const PROVIDER = `<% if (it.sso) { %><form method="post" action="/auth/oidc">${CSRF}<% if (it.next) { %><input type="hidden" name="next" value="<%= it.next %>"><% } %><% if (it.invitation) { %><input type="hidden" name="invitation" value="<%= it.invitation %>"><% } %>
<p><button type="submit"><%= it.t("sso.withProvider", { name: it.sso.name }) %></button></p></form><% } %>`
/** The three volume buttons (decisions §11): the current one pressed; `action` is where the form posts. */
export const VOLUME = (action: string, title: string) => `<section aria-labelledby="volume-title"><h2 id="volume-title"><%= it.t("${title}") %></h2>
<form method="post" action="${action}" class="volume">${CSRF}<% if (it.volumeNext) { %><input type="hidden" name="next" value="<%= it.volumeNext %>"><% } %>
<% for (const v of ["mute", "normal", "loud"]) { %><button type="submit" name="volume" value="<%= v %>" aria-pressed="<%= it.volume === v ? "true" : "false" %>"><%= it.t("volume." + v) %></button> <% } %>
</form><p class="hint"><%= it.t("volume.help." + it.volume) %></p></section>`
/**
 * A thread in a list (decisions §13): bold with "N new" where something is new to the reader, and **Mark as read**
 * (returning to `it.back`); `d` is a ThreadEntry (pages/threads/lists.ts).
 */
export const THREAD_LINK = `<a href="<%= d.href %>"><% if (d.isNew) { %><strong><%= d.title %></strong><% } else { %><%= d.title %><% } %></a><% if (d.isNew) { %> · <span class="count"><%= d.newLabel %></span>
<form method="post" action="/d/<%= d.key %>/read" class="inline">${CSRF}<input type="hidden" name="back" value="<%= it.back %>"><button type="submit" class="link" aria-label="<%= it.t("threads.markReadOf", { title: d.title }) %>"><%= it.t("threads.markRead") %></button></form><% } %>`
/**
 * The reactions under a record (decisions §13): each emoji with how many and who (the reader's own removable), and
 * **React** with Loomio's emoji where the rules let the reader react. `at` names the record in the template's data
 * (`{ type, id, reactions, mayReact }`); `it.back` is the page to come back to.
 */
export const REACTIONS = (at: string) => `<div class="reactions">
<% for (const r of ${at}.reactions) { %><% if (r.mine) { %><form method="post" action="/reactions/<%= r.mine %>/delete" class="inline">${CSRF}<input type="hidden" name="back" value="<%= it.back %>"><button type="submit" class="reaction mine" title="<%= r.names %>" aria-label="<%= it.t("reactions.removeOf", { emoji: r.emoji, count: r.count, names: r.names }) %>"><%= r.emoji %> <%= r.count %></button></form>
<% } else { %><span class="reaction" title="<%= r.names %>"><span aria-hidden="true"><%= r.emoji %> <%= r.count %></span><span class="visually-hidden"><%= it.t("reactions.of", { emoji: r.emoji, count: r.count, names: r.names }) %></span></span>
<% } %><% } %>
<% if (${at}.mayReact) { %><a class="react" href="/reactions/new?type=<%= ${at}.type %>&amp;id=<%= ${at}.id %>&amp;back=<%= encodeURIComponent(it.back) %>"><%= it.t("reactions.react") %><span class="visually-hidden"> <%= ${at}.label %></span></a><% } %>
</div>`

/** "Attach files" (decisions §14): its form goes as multipart (enctype), its files in the field `files`. */
export const ATTACH = (id: string) => `<p><label for="${id}-files"><%= it.t("comment.attach") %></label><br><input type="file" id="${id}-files" name="files" multiple></p>`

/** A record's files (layout/files.ts filesView): an image shown by its preview and linked to the file, anything else a link with its size. */
export const FILES = (at: string) => `<% if (${at}.length > 0) { %><ul class="files"><% for (const f of ${at}) { %><li><% if (f.image) { %><a href="<%= f.href %>"><img src="<%= f.src %>" alt="<%= f.name %>"<% if (f.box) { %> width="<%= f.box.width %>" height="<%= f.box.height %>"<% } %> loading="lazy"></a><% } else { %><a href="<%= f.href %>" download><%= f.name %></a> <span class="meta">(<%= f.size %>)</span><% } %></li><% } %></ul><% } %>`

/** An edit form's files (`at`: FileView[]), each kept unless unchecked; then "Attach files" adds more. */
export const KEEP_FILES = (at: string) => `<% if (${at}.length > 0) { %><fieldset><legend><%= it.t("files.legend") %></legend><input type="hidden" name="files_listed" value="1">
<% for (const f of ${at}) { %><p><input type="checkbox" id="keep-<%= f.signedId %>" name="keep" value="<%= f.signedId %>" checked> <label for="keep-<%= f.signedId %>"><%= it.t("files.keep", { name: f.name }) %></label></p><% } %></fieldset><% } %>`

export const ERR = (field: string) => `<% if (it.errors && it.errors.${field}) { %><p class="error" id="${field}-error"><%= it.errors.${field} %></p><% } %>`
export const DESCRIBED = (field: string) => `<%~ it.errors && it.errors.${field} ? ' aria-invalid="true" aria-describedby="${field}-error"' : '' %>`

eta.loadTemplate("@layout", `<!doctype html>
<html lang="<%= it.lang %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · convene</title>
<link rel="stylesheet" href="/assets/convene.css">
<% if (it.live) { %><script src="/assets/live.js" defer></script><% } %>
</head>
<body>
<a class="skip" href="#main"><%= it.t("layout.skip") %></a>
<header>
<nav aria-label="<%= it.t("layout.nav") %>">
<a href="/" class="brand">convene</a>
<a href="/search"><%= it.t("layout.search") %></a>
<% if (it.signedIn) { %><a href="/notifications" id="notifications-link" data-unseen-label="<%= it.t("layout.unseen") %>"><%= it.t("layout.notifications") %><% if (it.unseen > 0) { %> <span class="count"><%= it.unseen %><span class="visually-hidden"> <%= it.t("layout.unseen") %></span></span><% } %></a>
<a href="/profile"><%= it.t("layout.profile") %></a>
<form method="post" action="/sign-out" class="inline">${CSRF}<button type="submit" class="link"><%= it.t("layout.signOut") %></button></form>
<% } else { %><a href="/sign-in"><%= it.t("layout.signIn") %></a><% } %>
</nav>
</header>
<main id="main"<% if (it.live) { %> data-live-since="<%= it.live.since %>"<% if (it.live.follows) { %> data-live-follows="<%= it.live.topic ?? "all" %>" data-live-url="<%= it.live.url ?? "" %>"<% } %><% } %>>
<% if (it.crumbs && it.crumbs.length > 0) { %><nav aria-label="<%= it.t("layout.crumbs") %>" class="crumbs"><% for (const c of it.crumbs) { %><a href="<%= c.href %>"><%= c.label %></a> › <% } %></nav><% } %>
<h1><%= it.title %></h1>
<% if (it.notice) { %><p role="status" class="notice"><%= it.notice %></p><% } %>
<%~ it.body %>
<% if (it.live) { %><p id="live-status" class="visually-hidden" aria-live="polite" data-updated="<%= it.t("live.updated") %>"></p><% } %>
</main>
<footer><p><%= it.t("layout.zone", { zone: it.zone }) %></p></footer>
</body>
</html>
`)

eta.loadTemplate("@message", `<p><%= it.text %></p>
<% if (it.link) { %><p><a href="<%= it.link.href %>"><%= it.link.label %></a></p><% } %>
`)

/** A feature's template, named `@name`, over this layout's parts. */
export const define = (name: string, text: string) => eta.loadTemplate(name, text)

export const render = (template: string, data: object): string => eta.render(template, data)

export const STYLESHEET = `ul.files{list-style:none;padding:0;margin:.4rem 0}ul.files li{margin:.2rem 0}ul.files img{max-width:100%;height:auto;max-height:24rem;border:1px solid #8a97a6}
.count{display:inline-block;min-width:1.4rem;padding:0 .35rem;border-radius:.7rem;background:#8b1e3f;color:#fff;font-size:.85rem;text-align:center}
li.unseen{font-weight:600}
.reactions{margin:.4rem 0}.reaction{display:inline-block;padding:.15rem .55rem;margin:0 .3rem .3rem 0;border:1px solid #8a97a6;border-radius:1rem;background:#fff;color:#1b2733;font:inherit}
button.reaction.mine{background:#e3edf7;border-color:#2d5b8a}button.emoji{min-width:2.5rem;min-height:2.5rem;margin:.2rem;padding:.2rem;background:#fff;border:1px solid #8a97a6;color:#1b2733;font-size:1.2rem}
*,*::before,*::after{box-sizing:border-box}
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
@media (max-width:36rem){table.results thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}table.results,table.results tbody,table.results tr,table.results th,table.results td{display:block;width:auto}table.results tr{border:1px solid #ccc;margin-bottom:.5rem}table.results td,table.results th{border:0}table.results td::before{content:attr(data-label) ": ";font-weight:600}}
.crumbs{margin:.5rem 0}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
fieldset{border:1px solid #bbb;border-radius:4px;margin:.5rem 0}fieldset.slot{border-color:#ddd}
blockquote{border-left:3px solid #ccc;margin:0;padding-left:1rem;color:#4a5560}
.body img{max-width:100%}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
footer{margin-top:2rem;border-top:1px solid #ccc;color:#4a5560;font-size:.9rem}
`

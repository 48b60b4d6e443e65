/** The search page. */
import { define } from "../layout/templates.js"

define("@search", `<form method="get" action="/search" role="search">
<p><label for="q"><%= it.t("search.field") %></label><br><input id="q" name="q" type="search" maxlength="200" value="<%= it.q %>"></p>
<% if (it.groups.length > 0) { %><p><label for="group"><%= it.t("search.group") %></label><br><select id="group" name="group"><option value=""><%= it.t("search.allGroups") %></option>
<% for (const g of it.groups) { %><option value="<%= g.key %>"<%= it.group === g.key ? " selected" : "" %>><%= g.name %></option><% } %></select></p><% } %>
<p><label for="type"><%= it.t("search.type") %></label><br><select id="type" name="type"><option value=""><%= it.t("search.allTypes") %></option>
<% for (const t of it.types) { %><option value="<%= t.value %>"<%= it.type === t.value ? " selected" : "" %>><%= t.label %></option><% } %></select></p>
<p><button type="submit"><%= it.t("search.submit") %></button></p>
</form>
<p role="status"><%= it.summary %></p>
<% if (it.sections.length === 0) { %><p><%= it.t("search.none") %></p><% } %>
<% for (const s of it.sections) { %><section aria-labelledby="results-<%= s.type %>"><h2 id="results-<%= s.type %>"><%= s.heading %></h2><ol class="results">
<% for (const r of s.results) { %><li><a href="<%= r.href %>"><%= r.title %></a><br><span class="highlight"><%~ r.highlight %></span><br><span class="meta"><%= r.by %><% if (r.group) { %> · <%= r.group %><% } %></span></li><% } %>
</ol></section><% } %>
`)

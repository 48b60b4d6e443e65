/** Starting a poll of each type, and the poll page: voting, results, closing, the outcome, reopening. */
import { ATTACH, CSRF, DESCRIBED, ERR, FILES, KEEP_FILES, REACTIONS, define } from "../layout/templates.js"

/** A poll's settings, on starting it and on editing it (where an anonymous poll stays anonymous). */
export const POLL_SETTINGS = `<fieldset><legend><%= it.t("poll.settings") %></legend>
<% if (it.anonymousLocked) { %><input type="hidden" name="anonymous" value="1"><p><input type="checkbox" id="anonymous" checked disabled aria-describedby="anonymous-hint"> <label for="anonymous"><%= it.t("poll.anonymous") %></label><br><span class="hint" id="anonymous-hint"><%= it.t("poll.anonymousStays") %></span></p>
<% } else { %><p><input type="checkbox" id="anonymous" name="anonymous" value="1"<%= it.form.anonymous ? " checked" : "" %>> <label for="anonymous"><%= it.t("poll.anonymous") %></label></p><% } %>
${ERR("anonymous")}
<p><label for="voters"><%= it.t("poll.whoVotes") %></label><br><select id="voters" name="voters">
<% for (const v of ["group", "invited"]) { %><option value="<%= v %>"<%= it.form.voters === v ? " selected" : "" %>><%= it.t("poll.whoVotes." + v) %></option><% } %>
</select></p>
${ERR("voters")}
<p><label for="stance_reason_required"><%= it.t("poll.reasonSetting") %></label><br><select id="stance_reason_required" name="stance_reason_required">
<% for (const r of ["disabled", "optional", "required"]) { %><option value="<%= r %>"<%= it.form.stance_reason_required === r ? " selected" : "" %>><%= it.t("poll.reasonSetting." + r) %></option><% } %>
</select></p>
${ERR("stance_reason_required")}
<p><input type="checkbox" id="shuffle_options" name="shuffle_options" value="1"<%= it.form.shuffle_options ? " checked" : "" %>> <label for="shuffle_options"><%= it.t("poll.shuffleOptions") %></label></p>
<p><label for="notify_on_closing_soon"><%= it.t("poll.closingSoonNotice") %></label><br><select id="notify_on_closing_soon" name="notify_on_closing_soon">
<% for (const n of ["nobody", "author", "undecided_voters", "voters"]) { %><option value="<%= n %>"<%= it.form.notify_on_closing_soon === n ? " selected" : "" %>><%= it.t("poll.closingSoonNotice." + n) %></option><% } %>
</select></p>
${ERR("notify_on_closing_soon")}
<p><input type="checkbox" id="no_delegated_votes" name="no_delegated_votes" value="1" aria-describedby="no_delegated_votes-hint"<%= it.form.no_delegated_votes ? " checked" : "" %>> <label for="no_delegated_votes"><%= it.t("poll.noDelegatedVotes") %></label><br><span class="hint" id="no_delegated_votes-hint"><%= it.t("poll.noDelegatedVotesHint") %></span></p>
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
</fieldset>`

define("@new-poll", `<section aria-labelledby="templates-h"><h2 id="templates-h"><%= it.t("templates.choose") %></h2>
<p class="hint"><%= it.t("templates.chooseHint") %></p>
<ul class="templates"><% for (const tpl of it.templates) { %><li><a href="<%= tpl.href %>"<%= tpl.current ? ' aria-current="true"' : "" %>><%= tpl.name %></a> · <%= tpl.process %></li><% } %>
<li><a href="<%= it.action %>"><%= it.t("templates.blank") %></a></li></ul></section>
<% if (it.using) { %><p class="notice" role="note"><%= it.t("templates.using", { name: it.using }) %></p><% } %>
<form method="post" action="<%= it.action %>" enctype="multipart/form-data">
${CSRF}
<input type="hidden" name="poll_template_key" value="<%= it.form.poll_template_key %>"><input type="hidden" name="poll_template_id" value="<%= it.form.poll_template_id %>">
<p><label for="poll_type"><%= it.t("poll.type") %></label><br><select id="poll_type" name="poll_type">
<% for (const type of it.types) { %><option value="<%= type %>"<%= it.form.poll_type === type ? " selected" : "" %>><%= it.t("pollType." + type) %></option><% } %>
</select></p>
${ERR("poll_type")}
<p><label for="title"><%= it.t("discussion.title") %></label><br><input id="title" name="title" required maxlength="250" value="<%= it.form.title %>"${DESCRIBED("title")}></p>
${ERR("title")}
<p><label for="details"><%= it.t("discussion.details") %></label><br><textarea id="details" name="details" rows="4" aria-describedby="markdown-hint"><%= it.form.details %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
${ATTACH("details")}
<p><label for="options"><%= it.t("poll.options") %></label><br><textarea id="options" name="options" rows="5" aria-describedby="options-hint<%= it.errors && it.errors.options ? " options-error" : "" %>"<%= it.errors && it.errors.options ? " aria-invalid=true" : "" %>><%= it.form.options %></textarea></p>
<p class="hint" id="options-hint"><%= it.t("poll.optionsHint", { zone: it.zone }) %></p>
${ERR("options")}
<p><label for="closing_at"><%= it.t("poll.closingDate") %></label><br><input id="closing_at" name="closing_at" type="datetime-local" required value="<%= it.form.closing_at %>" aria-describedby="closing-hint<%= it.errors && it.errors.closing_at ? " closing_at-error" : "" %>"<%= it.errors && it.errors.closing_at ? " aria-invalid=true" : "" %>></p>
<p class="hint" id="closing-hint"><%= it.t("poll.inZone", { zone: it.zone }) %></p>
${ERR("closing_at")}
${POLL_SETTINGS}
<p><button type="submit"><%= it.t("poll.start") %></button></p>
</form>
`)

define("@poll", `<div id="poll-state" data-live-region><p class="meta"><%= it.type %> · <%= it.state %></p></div>
<% if (it.detailsHtml) { %><div class="body"><%~ it.detailsHtml %></div><% } %>
${FILES("it.files")}
<div id="poll-summary" data-live-region><p><%= it.t("poll.voted", { cast: it.cast, voters: it.voters }) %><% if (it.delegated > 0) { %> <%= it.t("poll.delegatedCount", { count: it.delegated }) %><% } %></p>
<% if (it.castForYou) { %><p class="notice" role="note"><%= it.t("poll.castForYou", { name: it.castForYou }) %></p><% } %>
${REACTIONS("it.pollReact")}
<% if (it.outcome) { %><section class="outcome" aria-labelledby="outcome-h"><h2 id="outcome-h"><%= it.t("poll.outcome") %></h2><p class="meta"><%= it.outcome.by %></p><div class="body"><%~ it.outcome.html %></div>
${FILES("it.outcome.files")}
${REACTIONS("it.outcomeReact")}</section><% } %></div>
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
<% if (it.vote.reasonTaken !== "disabled") { %><p><label for="reason"><%= it.vote.reasonTaken === "required" ? it.t("poll.reasonNeeded") : it.t("poll.reason") %></label><br><textarea id="reason" name="reason" rows="3"<%= it.vote.reasonTaken === "required" ? " required" : "" %>${DESCRIBED("reason")}><%= it.vote.reason %></textarea></p>
${ERR("reason")}<% } %>
<p><button type="submit"><%= it.vote.mine ? it.t("poll.changeVote") : it.t("poll.vote") %></button></p>
</form>
<% } else if (it.voteNote) { %><p><%= it.voteNote %></p><% } %>
<div id="poll-results" data-live-region><h2 id="results-h"><%= it.t("poll.results") %></h2>
<% if (it.results) { %><table class="results" role="table"><caption class="visually-hidden"><%= it.t("poll.results") %></caption>
<thead role="rowgroup"><tr role="row"><th scope="col" role="columnheader"><%= it.t("poll.option") %></th><% for (const h of it.results.columns) { %><th scope="col" role="columnheader"><%= h %></th><% } %><th scope="col" role="columnheader"><%= it.t("poll.share") %></th><% if (it.results.named) { %><th scope="col" role="columnheader"><%= it.t("poll.voters") %></th><% } %></tr></thead><tbody role="rowgroup">
<% for (const r of it.results.rows) { %><tr role="row"><th scope="row" role="rowheader"><%= r.label %></th><% for (const [i, v] of r.values.entries()) { %><td role="cell" data-label="<%= it.results.columns[i] %>"><%= v %></td><% } %><td role="cell" data-label="<%= it.t("poll.share") %>"><span class="pct"><%= r.percentText %></span> <meter min="0" max="100" value="<%= r.percent %>" aria-label="<%= r.label %>: <%= r.percentText %>"></meter></td><% if (it.results.named) { %><td role="cell" data-label="<%= it.t("poll.voters") %>"><%= r.voters %></td><% } %></tr><% } %>
</tbody></table>
<p class="actions"><a href="/p/<%= it.key %>/export.csv" download><%= it.t("export.csv") %></a> · <a href="/p/<%= it.key %>/print"><%= it.t("export.print") %></a></p><% } else { %><p><%= it.hiddenUntil %></p><% } %></div>
<div id="poll-votes" data-live-region><% if (it.votes.length > 0) { %><section aria-labelledby="votes-h"><h2 id="votes-h"><%= it.t("poll.votes") %></h2><ul class="votes">
<% for (const v of it.votes) { %><li id="stance-<%= v.id %>"><p class="meta"><%= v.heading %></p><% if (v.reasonHtml) { %><div class="body"><%~ v.reasonHtml %></div><% } %>
${REACTIONS("v.react")}</li><% } %></ul><% if (it.moreVotes) { %><p><a href="<%= it.moreVotes.href %>"><%= it.moreVotes.label %></a></p><% } %></section><% } %></div>
<% if (it.may.edit) { %><p><a href="/p/<%= it.key %>/edit"><%= it.t("poll.edit") %></a></p><% } %>
<% if (it.may.invite) { %><p><a href="/p/<%= it.key %>/voters"><%= it.t("poll.inviteVoters") %></a></p><% } %>
<% if (it.may.remind) { %><form method="post" action="/p/<%= it.key %>/remind">${CSRF}<p><button type="submit"><%= it.t("poll.remind") %></button></p></form><% } %>
<% if (it.may.close) { %><form method="post" action="/p/<%= it.key %>/close">${CSRF}<p><button type="submit"><%= it.t("poll.close") %></button></p></form><% } %>
<% if (it.may.outcome) { %><h2><%= it.t("poll.shareOutcomeHeading") %></h2>
<form method="post" action="/p/<%= it.key %>/outcome" enctype="multipart/form-data">
${CSRF}
<p><label for="statement"><%= it.t("poll.outcome") %></label><br><textarea id="statement" name="statement" rows="4" required${DESCRIBED("statement")}><%= it.form.statement %></textarea></p>
${ERR("statement")}
<% if (it.meetingSlots) { %><fieldset aria-describedby="meeting-hint"><legend><%= it.t("outcome.meeting") %></legend>
<p class="hint" id="meeting-hint"><%= it.t("outcome.meetingHint") %></p>
<p><label for="poll_option_id"><%= it.t("outcome.chosenTime") %></label><br><select id="poll_option_id" name="poll_option_id"><option value=""><%= it.t("outcome.noTime") %></option>
<% for (const o of it.meetingSlots) { %><option value="<%= o.id %>"><%= o.label %></option><% } %></select></p>
${ERR("poll_option_id")}
<p><label for="event_summary"><%= it.t("outcome.eventTitle") %></label><br><input id="event_summary" name="event_summary" maxlength="250"></p>
<p><label for="event_location"><%= it.t("outcome.location") %></label><br><input id="event_location" name="event_location" maxlength="250"></p>
</fieldset><% } %>
${ATTACH("statement")}
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

define("@edit-poll", `<form method="post" action="/p/<%= it.key %>/edit" enctype="multipart/form-data">
${CSRF}
<p><label for="title"><%= it.t("discussion.title") %></label><br><input id="title" name="title" required maxlength="250" value="<%= it.form.title %>"${DESCRIBED("title")}></p>
${ERR("title")}
<p><label for="details"><%= it.t("discussion.details") %></label><br><textarea id="details" name="details" rows="5" aria-describedby="markdown-hint"><%= it.form.details %></textarea></p>
<p class="hint" id="markdown-hint"><%= it.t("form.markdown") %></p>
${KEEP_FILES("it.files")}
${ATTACH("details")}
<p><label for="closing_at"><%= it.t("poll.closingDate") %></label><br><input id="closing_at" name="closing_at" type="datetime-local" required value="<%= it.form.closing_at %>"${DESCRIBED("closing_at")}></p>
${ERR("closing_at")}
<% if (it.optionsEditable) { %><p><label for="options"><%= it.t("poll.options") %></label><br><textarea id="options" name="options" rows="5"${DESCRIBED("options")}><%= it.form.options %></textarea></p>
${ERR("options")}
<% if (it.removing) { %><p><input type="checkbox" id="confirm_removal" name="confirm_removal" value="1"> <label for="confirm_removal"><%= it.t("poll.confirmRemoval", { options: it.removing }) %></label></p><% } %><% } %>
${POLL_SETTINGS}
<p><label for="change"><%= it.t("poll.whatChanged") %></label><br><textarea id="change" name="change" rows="3"><%= it.form.change %></textarea></p>
<p><input type="checkbox" id="notify" name="notify" value="1"<%= it.form.notify ? " checked" : "" %>> <label for="notify"><%= it.t("poll.notifyVoters") %></label></p>
<p><button type="submit"><%= it.t("poll.save") %></button></p>
</form>
`)

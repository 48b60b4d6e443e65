import { m001_foundation } from "./001_foundation.js"
import { m002_discussions } from "./002_discussions.js"
import { m003_webhooks } from "./003_webhooks.js"
import { m004_polls } from "./004_polls.js"
import { m005_search } from "./005_search.js"
import { m006_membership_indexes } from "./006_membership_indexes.js"
import { m007_thread_indexes } from "./007_thread_indexes.js"
import { m008_report_indexes } from "./008_report_indexes.js"
import { m009_poll_counters } from "./009_poll_counters.js"
import { m010_group_counters } from "./010_group_counters.js"
import { m011_search_vocabulary } from "./011_search_vocabulary.js"
import { m012_mail_delivery } from "./012_mail_delivery.js"
import { m013_people } from "./013_people.js"
import { m014_mutes } from "./014_mutes.js"
import { m015_user_epoch } from "./015_user_epoch.js"
import { m016_group_content_counters } from "./016_group_content_counters.js"
import { m017_imports } from "./017_imports.js"
import { m018_membership_epoch } from "./018_membership_epoch.js"
import { m019_counted_choices } from "./019_counted_choices.js"
import { m020_user_preferences } from "./020_user_preferences.js"
import { m021_server_secrets } from "./021_server_secrets.js"
import { m022_granted_memberships } from "./022_granted_memberships.js"
import { m023_mail_both_ways } from "./023_mail_both_ways.js"
import { m024_loud_volumes } from "./024_loud_volumes.js"
import { m025_placeholders } from "./025_placeholders.js"
import { m026_subgroup_starters } from "./026_subgroup_starters.js"
import { m027_email_changes } from "./027_email_changes.js"
import { m028_pinned_threads } from "./028_pinned_threads.js"

/**
 * Applied in order; `PRAGMA user_version` records how many have run. Each is frozen SQL text, held by its
 * checksum in the tests: never edit a released one, add the next.
 */
export const migrations: ReadonlyArray<string> = [m001_foundation, m002_discussions, m003_webhooks, m004_polls, m005_search, m006_membership_indexes, m007_thread_indexes, m008_report_indexes, m009_poll_counters, m010_group_counters, m011_search_vocabulary, m012_mail_delivery, m013_people, m014_mutes, m015_user_epoch, m016_group_content_counters, m017_imports, m018_membership_epoch, m019_counted_choices, m020_user_preferences, m021_server_secrets, m022_granted_memberships, m023_mail_both_ways, m024_loud_volumes, m025_placeholders, m026_subgroup_starters, m027_email_changes, m028_pinned_threads]

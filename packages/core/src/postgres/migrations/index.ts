import { m001_schema } from "./001_schema.js"
import { m002_user_preferences } from "./002_user_preferences.js"
import { m003_server_secrets } from "./003_server_secrets.js"
import { m004_granted_memberships } from "./004_granted_memberships.js"
import { m005_mail_both_ways } from "./005_mail_both_ways.js"
import { m006_native_types } from "./006_native_types.js"
import { m007_cache_epochs } from "./007_cache_epochs.js"
import { m008_loud_volumes } from "./008_loud_volumes.js"
import { m009_placeholders } from "./009_placeholders.js"
import { m010_subgroup_starters } from "./010_subgroup_starters.js"
import { m011_email_changes } from "./011_email_changes.js"
import { m012_pinned_threads } from "./012_pinned_threads.js"
import { m013_group_life } from "./013_group_life.js"
import { m014_notifications } from "./014_notifications.js"
import { m015_keeping_up } from "./015_keeping_up.js"
import { m016_files } from "./016_files.js"
import { m017_delegation } from "./017_delegation.js"
import { m018_poll_templates } from "./018_poll_templates.js"

/** The PostgreSQL schema's migrations, applied in order (db.ts migratePg); version N is the first N. */
export const migrations: ReadonlyArray<string> = [m001_schema, m002_user_preferences, m003_server_secrets, m004_granted_memberships, m005_mail_both_ways,
  m006_native_types, m007_cache_epochs, m008_loud_volumes, m009_placeholders, m010_subgroup_starters, m011_email_changes, m012_pinned_threads, m013_group_life, m014_notifications, m015_keeping_up, m016_files, m017_delegation, m018_poll_templates]

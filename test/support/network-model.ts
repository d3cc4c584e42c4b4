/**
 * A school network's model in the shape such teams write it when every view is for some group (issue 36):
 * private cubes (facts and dimensions), public views that pick their members with join paths, prefixes and
 * aliases, and on every view an `access_policy` that names only groups, with `member_level` includes and a
 * row filter on a security-context list (the schools a user may see), as a deployment's own
 * `contextToGroups` turns a user into groups. A user of no group sees no view at all. Written here; no real
 * project's file is copied. The reports are the saved content a network's staff would build on the views.
 */

const STUDENTS = `cubes:
  - name: students
    public: false
    sql_table: marts.dim_students
    measures:
      - name: count_students
        type: count_distinct
        sql: student_key
    dimensions:
      - name: student_key
        sql: student_key
        type: string
        primary_key: true
      - name: school_abbreviation
        sql: school_abbreviation
        type: string
      - name: grade_level
        sql: grade_level
        type: number
      - name: is_ell
        sql: is_ell
        type: boolean
      - name: date_of_birth
        sql: date_of_birth
        type: time
`;

const DATES = `cubes:
  - name: dates
    public: false
    sql_table: marts.dim_dates
    dimensions:
      - name: date_day
        sql: date_day
        type: time
        primary_key: true
      - name: month_name
        sql: month_name
        type: string
      - name: school_week
        sql: school_week
        type: number
`;

const ATTENDANCE = `cubes:
  - name: attendance
    public: false
    sql_table: marts.fct_attendance
    joins:
      - name: students
        sql: "{CUBE}.student_key = {students.student_key}"
        relationship: many_to_one
      - name: dates
        sql: "{CUBE}.date_day = {dates.date_day}"
        relationship: many_to_one
    measures:
      - name: days_present
        sql: is_present
        type: sum
      - name: days_enrolled
        type: count
      - name: avg_daily_attendance
        sql: "1.0 * {days_present} / NULLIF({days_enrolled}, 0)"
        type: number
      - name: count_truants
        sql: student_key
        type: count_distinct
        filters:
          - sql: "{CUBE}.is_truant"
    dimensions:
      - name: attendance_key
        sql: attendance_key
        type: string
        primary_key: true
      - name: attendance_category
        sql: attendance_category
        type: string
      - name: academic_year
        sql: academic_year
        type: number
`;

const STAFF = `cubes:
  - name: staff
    public: false
    sql_table: marts.dim_staff
    measures:
      - name: count_staff
        type: count
    dimensions:
      - name: staff_key
        sql: staff_key
        type: string
        primary_key: true
      - name: department
        sql: department
        type: string
      - name: job_title
        sql: job_title
        type: string
      - name: location_abbreviation
        sql: location_abbreviation
        type: string
      - name: personal_email
        sql: personal_email
        type: string
      - name: salary
        sql: salary
        type: number
`;

/** Attendance for whoever may see student data, rows of their own schools only. */
export const ATTENDANCE_SUMMARY = `views:
  - name: attendance_summary
    cubes:
      - join_path: attendance
        includes:
          - avg_daily_attendance
          - days_present
          - count_truants
          - attendance_category
          - academic_year
      - join_path: attendance.dates
        prefix: true
        includes:
          - date_day
          - month_name
      - join_path: attendance.students
        prefix: true
        includes:
          - grade_level
          - is_ell
          - school_abbreviation
    access_policy:
      - group: student-data
        member_level:
          includes: "*"
        row_level:
          filters:
            - member: students_school_abbreviation
              operator: equals
              values: ["{ securityContext.allowed_schools }"]
      - group: network-leaders
        member_level:
          includes:
            - avg_daily_attendance
            - academic_year
            - students_school_abbreviation
`;

/** Students one row each: the roster for student data, birth dates for student PII only. */
const STUDENT_ROSTER = `views:
  - name: student_roster
    cubes:
      - join_path: students
        includes:
          - count_students
          - grade_level
          - school_abbreviation
          - is_ell
          - date_of_birth
    access_policy:
      - group: student-data
        member_level:
          includes: "*"
          excludes: [date_of_birth]
      - group: student-pii
        member_level:
          includes: "*"
`;

/** The staff directory for every employee. */
export const STAFF_DIRECTORY = `views:
  - name: staff_directory
    cubes:
      - join_path: staff
        includes:
          - count_staff
          - department
          - job_title
          - location_abbreviation
    access_policy:
      - group: staff-directory
        member_level:
          includes: "*"
`;

/** Staff personal data for HR. */
export const STAFF_PII = `views:
  - name: staff_pii
    cubes:
      - join_path: staff
        includes:
          - department
          - personal_email
          - salary
    access_policy:
      - group: staff-pii
        member_level:
          includes: "*"
`;

export const NETWORK_MODEL: Record<string, string> = {
  'model/cubes/students.yml': STUDENTS,
  'model/cubes/dates.yml': DATES,
  'model/cubes/attendance.yml': ATTENDANCE,
  'model/cubes/staff.yml': STAFF,
  'model/views/attendance_summary.yml': ATTENDANCE_SUMMARY,
  'model/views/student_roster.yml': STUDENT_ROSTER,
  'model/views/staff_directory.yml': STAFF_DIRECTORY,
  'model/views/staff_pii.yml': STAFF_PII,
};

/** Every group the network model's policies name (what the whole layer's token carries). */
export const NETWORK_GROUPS = ['network-leaders', 'staff-directory', 'staff-pii', 'student-data', 'student-pii'];

/** The network model with replacements in some files (each must apply). */
export function networkEdit(changes: Record<string, [string | RegExp, string][]>): Record<string, string> {
  const out = { ...NETWORK_MODEL };
  for (const [path, pairs] of Object.entries(changes)) {
    let text = out[path] as string;
    for (const [from, to] of pairs) {
      const next = text.replace(from, to);
      if (next === text) throw new Error(`${path} has no ${String(from)}`);
      text = next;
    }
    out[path] = text;
  }
  return out;
}

/** The truancy count taken out of the attendance view (a report of chronic absence uses it). */
export const TRUANTS_REMOVED = networkEdit({ 'model/views/attendance_summary.yml': [['          - count_truants\n', '']] });

/** The grade level of the attendance view renamed (its `students_` prefix dropped for an alias of its own). */
export const GRADE_RENAMED = networkEdit({
  'model/views/attendance_summary.yml': [
    ['          - grade_level\n          - is_ell\n', '          - name: grade_level\n            alias: grade\n          - is_ell\n'],
  ],
});

/**
 * Staff PII for HR only while the user's attribute says so: a condition on a user attribute, which a token
 * carrying every group but no attributes does not meet (Cube then leaves the view out of its `/meta`).
 */
export const PII_CONDITIONED = networkEdit({
  'model/views/staff_pii.yml': [['      - group: staff-pii\n', '      - group: staff-pii\n        conditions:\n          - if: "{ userAttributes.is_hr }"\n']],
});

/** Saved reports the network's staff built on the views: `jsonQuery` as the workspace stores it. */
export const NETWORK_REPORTS: { name: string; query: Record<string, unknown> }[] = [
  {
    name: 'Chronic absence by grade',
    query: {
      measures: ['attendance_summary.count_truants', 'attendance_summary.avg_daily_attendance'],
      dimensions: ['attendance_summary.students_grade_level', 'attendance_summary.students_school_abbreviation'],
    },
  },
  { name: 'Staff by department', query: { measures: ['staff_directory.count_staff'], dimensions: ['staff_directory.department'] } },
];

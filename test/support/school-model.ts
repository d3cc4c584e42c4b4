/**
 * A school network's model in the shapes public Cube projects take (issue 30): private cubes whose members
 * are made public one by one, views that reach a calendar cube through a join path, a view that prefixes a
 * cube's members under an alias, hidden helper measures under a public ratio, a primary key hidden by
 * default. Written here; no real project's file is copied. Each head is the base with one commit's edit.
 */

const SCORES = `cubes:
  - name: scores
    public: false
    sql_table: marts.fct_scores
    joins:
      - name: administrations
        sql: "{administrations.administration_id} = {CUBE}.administration_id"
        relationship: many_to_one
      - name: dates
        sql: "{dates.date_key} = {CUBE}.scored_on"
        relationship: many_to_one
      - name: enrollment_stints
        sql: "{enrollment_stints.stint_id} = {CUBE}.stint_id"
        relationship: many_to_one
    measures:
      - name: score_count
        type: count
        public: true
      - name: avg_points
        sql: points
        type: avg
        public: true
      - name: students_tested
        sql: student_id
        type: count
        public: true
      - name: _sum_mastered
        sql: "CASE WHEN {CUBE}.mastered THEN 1 ELSE 0 END"
        type: sum
        public: false
      - name: mastery_rate
        sql: "1.0 * {_sum_mastered} / NULLIF({score_count}, 0)"
        type: number
        public: true
    dimensions:
      - name: score_id
        sql: score_id
        type: string
        primary_key: true
      - name: raw_points
        sql: points
        type: number
        shown: false
      - name: subject
        sql: subject
        type: string
        public: true
`;

const ADMINISTRATIONS = `cubes:
  - name: administrations
    public: false
    sql_table: marts.dim_administrations
    joins:
      - name: dates
        sql: "{dates.date_key} = {CUBE}.administered_on"
        relationship: many_to_one
    dimensions:
      - name: administration_id
        sql: administration_id
        type: string
        primary_key: true
      - name: window_name
        sql: window_name
        type: string
        public: true
`;

const DATES = `cubes:
  - name: dates
    public: false
    sql_table: marts.dim_dates
    dimensions:
      - name: date_key
        sql: date_key
        type: time
        primary_key: true
        public: true
      - name: school_year
        sql: school_year
        type: number
        public: true
`;

const STINTS = `cubes:
  - name: enrollment_stints
    public: false
    sql_table: marts.dim_enrollments
    measures:
      - name: stints
        sql: stint_id
        type: count_distinct
        public: true
    dimensions:
      - name: stint_id
        sql: stint_id
        type: string
        primary_key: true
      - name: grade_level
        sql: grade_level
        type: number
        public: true
`;

const ATTENDANCE = `cubes:
  - name: attendance
    public: false
    sql_table: marts.fct_attendance
    joins:
      - name: enrollment_stints
        sql: "{enrollment_stints.stint_id} = {CUBE}.stint_id"
        relationship: many_to_one
    measures:
      - name: days_present
        sql: present
        type: sum
        public: true
    dimensions:
      - name: attendance_id
        sql: attendance_id
        type: string
        primary_key: true
`;

const SCORES_VIEW = `views:
  - name: scores_view
    cubes:
      - join_path: scores
        includes: [score_count, avg_points, students_tested, mastery_rate, subject]
      - join_path: scores.administrations
        includes: [window_name]
      - join_path: scores.administrations.dates
        includes: "*"
      - join_path: scores.enrollment_stints
        includes: [grade_level]
`;

const ATTENDANCE_VIEW = `views:
  - name: attendance_view
    cubes:
      - join_path: attendance
        includes: [days_present]
      - join_path: attendance.enrollment_stints
        prefix: true
        alias: stint
        includes: [grade_level, stints]
`;

export const SCHOOL_MODEL: Record<string, string> = {
  'model/cubes/scores.yml': SCORES,
  'model/cubes/administrations.yml': ADMINISTRATIONS,
  'model/cubes/dates.yml': DATES,
  'model/cubes/enrollment_stints.yml': STINTS,
  'model/cubes/attendance.yml': ATTENDANCE,
  'model/views/scores_view.yml': SCORES_VIEW,
  'model/views/attendance_view.yml': ATTENDANCE_VIEW,
};

/** The model with replacements in some files (each must apply), and files renamed (`from` → `to`). */
export function schoolEdit(changes: Record<string, [string | RegExp, string][]>, moves: Record<string, string> = {}): Record<string, string> {
  const out = { ...SCHOOL_MODEL };
  for (const [path, pairs] of Object.entries(changes)) {
    let text = out[path] as string;
    for (const [from, to] of pairs) {
      const next = text.replace(from, to);
      if (next === text) throw new Error(`${path} has no ${String(from)}`);
      text = next;
    }
    out[path] = text;
  }
  for (const [from, to] of Object.entries(moves)) {
    out[to] = out[from] as string;
    delete out[from];
  }
  return out;
}

/** The calendar reached through the score itself, not its administration: the view's dates mean the score's date. */
export const REPOINTED = schoolEdit({ 'model/views/scores_view.yml': [['join_path: scores.administrations.dates', 'join_path: scores.dates']] });

/** `enrollment_stints` renamed `school_enrollments` (the same table); every cube and view that joins it follows. */
export const RENAMED = schoolEdit(
  {
    'model/cubes/enrollment_stints.yml': [['name: enrollment_stints', 'name: school_enrollments']],
    'model/cubes/scores.yml': [[/enrollment_stints/g, 'school_enrollments']],
    'model/cubes/attendance.yml': [[/enrollment_stints/g, 'school_enrollments']],
    'model/views/scores_view.yml': [['scores.enrollment_stints', 'scores.school_enrollments']],
    'model/views/attendance_view.yml': [['attendance.enrollment_stints', 'attendance.school_enrollments']],
  },
  { 'model/cubes/enrollment_stints.yml': 'model/cubes/school_enrollments.yml' },
);

/**
 * Every key Cube's validator (`CubeValidator` of @cubejs-backend/schema-compiler 1.7.43) accepts
 * somewhere in a cube or view, as the compiler spells it (camelCase). A key outside this list that the
 * validator calls "not allowed" is a misspelling (`primery_key`), never the trace of an alternative
 * shape the validator tried.
 */
export const KNOWN_KEYS: ReadonlySet<string> = new Set(
  `accessPolicy addGroupBy alias aliases allDefinitions allowAll allowNonStrictDateRangeMatch and buildRangeEnd
  buildRangeStart calendar case columns conditions cubes cumulative currency custom dashboard dataSource day
  defaultFilters description dimension dimensionReferences dimensions dir drillFilters drillMemberReferences
  drillMembers else enableSuggestions every exclude excludes excludesMembers extends external fieldType fileName
  filter filters folders format grain granularities granularity group groupBy groups hierarchies hour icon if
  immutable include includes includesMembers incremental indexes interval is isView joinPath joins keepOnly key
  keyReference label latitude leading levels links longitude mask maxPreAggregations measureReferences measures
  member memberLevel memberMasking memberReference meta minute mode month multiStage name offset operator or order
  orderBy origin otherwise outputColumnTypes params partitionGranularity preAggregations prefix primary primaryKey
  propagateFiltersToSubQuery public quarter rawCubes rawFolders readOnly reduceBy refreshKey refreshRangeEnd
  refreshRangeStart relationship rewriteQueries rollingWindow rollupReferences rollups rowLevel scheduledRefresh
  second segmentReferences segments shown split sql sqlAlias sqlTable streamOffset subQuery suggestFilterValues
  switch target then timeDimension timeDimensionReference timeDimensions timeShift timezone title trailing type
  unionWithSourceData uniqueKeyColumns unless updateWindow url useOriginalSqlPreAggregations value values
  valuesAsSegments viewGroup viewGroups views visible week when year`.split(/\s+/),
);

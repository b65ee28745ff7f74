# The analyst's side in Python with clickhouse-connect (PyPI), unchanged: connect, query, query with
# server-side parameters, and a refused statement. Prints one JSON object for the test to check.
import json
import sys

import clickhouse_connect
from clickhouse_connect.driver.exceptions import DatabaseError

port, user, password, database, secret_path = sys.argv[1:6]
client = clickhouse_connect.get_client(host='127.0.0.1', port=int(port), username=user, password=password, database=database)
out = {'server_version': client.server_version}
out['count'] = client.query('SELECT count() AS n FROM fills').result_rows[0][0]
out['params'] = client.query('SELECT {a:UInt32} + {b:UInt32} AS s', parameters={'a': 40, 'b': 2}).result_rows[0][0]
out['rows'] = [list(r) for r in client.query('SELECT number, toString(number) FROM numbers(3)').result_rows]
out['tables'] = sorted(r[0] for r in client.query('SHOW TABLES').result_rows)
out['command'] = client.command('SELECT 41 + 1')
refusals = {}
for name, sql in [('file', f"SELECT file('{secret_path}')"), ('insert', 'INSERT INTO fills SELECT * FROM fills'),
                  ('url', "SELECT * FROM url('http://127.0.0.1:1/', 'LineAsString')"), ('other_db', 'SELECT * FROM system.query_log')]:
    try:
        client.query(sql)
        refusals[name] = 'ran'
    except DatabaseError as error:
        refusals[name] = str(error)
out['refusals'] = refusals
print(json.dumps(out, default=str))

"""An interactions file keeps one time format: where integers and ISO 8601 dates mix, the
error names the line where the format changes, not the first line."""
import pytest

from sampled_metrics.textfile.text import DataError
from sampled_metrics.datasets.interactions import read_interactions_file


@pytest.mark.parametrize("times, message", [
    (["2020-01-01", "2020-01-02", "1577836800", "2020-01-03"],
     "line 4: time ('time') '1577836800' changes format: the rows before it are ISO 8601 "
     "dates (from line 2)"),
    (["1577836800", "1577836801", "2020-01-01"],
     "line 4: time ('time') '2020-01-01' changes format: the rows before it are integers "
     "(from line 2)"),
    (["garbage", "1577836801"], "line 2: time ('time') is not an integer: 'garbage'"),
    (["1577836800", "soon"], "line 3: time ('time') is not an integer: 'soon'"),
])
def test_mixed_time_formats_name_the_line_that_changes(tmp_path, times, message):
    path = tmp_path / "log.csv"
    path.write_text("user,item,time\n" + "".join(f"{u},{i},{t}\n" for (u, i), t in
                                                  zip([(1, 1), (1, 2), (2, 1), (2, 2)], times)))
    with pytest.raises(DataError) as err:
        read_interactions_file(path, user_col="user", item_col="item", time_col="time")
    assert str(err.value).endswith(f"{path.name}: {message}")
